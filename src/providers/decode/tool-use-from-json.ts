import type { BlockMeta, ToolUseBlock } from "../../messages/index.js";
import type { JsonResult } from "../../stream/json-result.js";
import { isPlainObject } from "../is-plain-object.js";

/**
 * The `tool_use` block for streamed input text, judged by the JSON accumulator.
 *
 * - `ok` with an object: the input.
 * - `ok` with any other JSON value (a tool's input must be an object): `invalid`, the text kept in `raw_input`.
 * - nothing at all in a call that was closed normally: `{}` (a tool without arguments; providers send `""`).
 * - `incomplete` / `invalid`: `input: {}`, the exact text in `raw_input`, so the tool never runs on it.
 */
export function toolUseFromJson(
  id: string,
  name: string,
  result: JsonResult,
  closed: boolean,
  meta?: BlockMeta,
): ToolUseBlock {
  const block: ToolUseBlock = { type: "tool_use", id, name, input: {} };
  if (result.status === "ok" && isPlainObject(result.value)) {
    block.input = result.value;
  } else if (closed && result.raw.trim() === "") {
    // No arguments at all: the call takes none.
  } else {
    block.raw_input = result.raw;
    block.input_status = result.status === "incomplete" ? "incomplete" : "invalid";
  }
  if (meta !== undefined) block.meta = meta;
  return block;
}
