import type { ToolResultBlock } from "../../messages/index.js";
import { type SplitToolResult, splitToolResult } from "./tool-result-content.js";

/**
 * `splitToolResult` for wires whose tool results have no error flag (both OpenAI APIs): the text of an
 * `is_error` result starts with `[error] `, so the model still sees that the call failed.
 */
export function splitMarkedToolResult(block: ToolResultBlock): SplitToolResult {
  const { text, images } = splitToolResult(block);
  return { text: block.is_error ? `[error] ${text}` : text, images };
}
