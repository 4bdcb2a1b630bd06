import type { BlockMeta, ToolUseBlock } from "../../messages/index.js";
import type { JsonResult } from "../../stream/json-result.js";
import { isPlainObject } from "../is-plain-object.js";
import { MAX_INPUT_DEPTH, nestsDeeperThan } from "./nesting-depth.js";

/** How a streamed tool call ended, for `toolUseFromJson`. */
export interface ToolInputEnd {
  id: string;
  name: string;
  /** The accumulator's verdict on the input text received. */
  result: JsonResult;
  /** The call stopped before its provider closed it (max_tokens, a dropped connection): it is `incomplete`. */
  cut: boolean;
  meta?: BlockMeta | undefined;
  /** The input the call started with (Anthropic's `content_block_start` `input: {}`), used when no text came. */
  placeholder?: unknown;
}

/**
 * The `tool_use` block for streamed input text — the one rule every adapter follows:
 *
 * - cut (the provider never closed the call): `incomplete`, the text kept in `raw_input`, whatever it looks like,
 *   since the model had not finished the call;
 * - `ok` with an object: the input;
 * - nothing at all: the start placeholder when it is an object, else `{}` (a tool without arguments; providers
 *   send `""`);
 * - anything else (`invalid`, `incomplete`, JSON that is not an object, or that nests deeper than
 *   `MAX_INPUT_DEPTH`): `input: {}` and the exact text in `raw_input`, so the tool never runs on it — the call's
 *   result is an error, and the conversation stays serialisable.
 */
export function toolUseFromJson(end: ToolInputEnd): ToolUseBlock {
  const { result } = end;
  const block: ToolUseBlock = { type: "tool_use", id: end.id, name: end.name, input: {} };
  if (end.cut) {
    block.raw_input = result.raw;
    block.input_status = "incomplete";
  } else if (result.status === "ok" && nestsDeeperThan(result.value, MAX_INPUT_DEPTH)) {
    block.raw_input = result.raw;
    block.input_status = "invalid";
    block.meta = { ...end.meta, protocolError: `the input nests deeper than ${MAX_INPUT_DEPTH} levels` };
    return block;
  } else if (result.status === "ok" && isPlainObject(result.value)) {
    block.input = result.value;
  } else if (result.raw.trim() === "") {
    if (isPlainObject(end.placeholder) && !nestsDeeperThan(end.placeholder, MAX_INPUT_DEPTH))
      block.input = end.placeholder;
  } else {
    block.raw_input = result.raw;
    block.input_status = result.status === "incomplete" ? "incomplete" : "invalid";
  }
  if (end.meta !== undefined) block.meta = end.meta;
  return block;
}
