import type { Message, ToolResultBlock } from "../messages/index.js";

/**
 * Makes a loaded transcript safe to continue: when the process died after an assistant message with
 * tool_use blocks but before their results were logged, each pending call is answered with an is_error
 * "interrupted" result, so the next request is valid (every tool_use answered in the next user message).
 */
export function resumeMessages(messages: readonly Message[]): Message[] {
  const out = [...messages];
  const last = out.at(-1);
  if (last?.role !== "assistant") return out;
  const pending = last.content.filter((b) => b.type === "tool_use");
  if (pending.length === 0) return out;
  const results: ToolResultBlock[] = pending.map((b) => ({
    type: "tool_result",
    tool_use_id: b.type === "tool_use" ? b.id : "",
    is_error: true,
    content: "The session was interrupted before this tool call finished; it did not run to completion.",
  }));
  out.push({ role: "user", content: results });
  return out;
}
