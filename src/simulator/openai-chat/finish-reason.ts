import type { SimStopReason } from "../types.js";

/** Chat Completions' `finish_reason` for a neutral stop reason (a refusal is content_filter). */
export function finishReason(stop: SimStopReason): "stop" | "tool_calls" | "length" | "content_filter" {
  switch (stop) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}
