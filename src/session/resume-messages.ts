import { errorResult } from "../loop/run-tools.js";
import type { Message, ToolUseBlock } from "../messages/index.js";

const INTERRUPTED_SESSION =
  "The session was interrupted before this tool call finished; it did not run to completion.";

/**
 * Makes a loaded transcript safe to continue: when the process died after an assistant message with
 * tool_use blocks but before their results were logged, each pending call is answered with an is_error
 * "interrupted" result, so the next request is valid (every tool_use answered in the next user message).
 */
export function resumeMessages(messages: readonly Message[]): Message[] {
  const out = [...messages];
  const last = out.at(-1);
  if (last?.role !== "assistant") return out;
  const pending = last.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  if (pending.length === 0) return out;
  out.push({ role: "user", content: pending.map((b) => errorResult(b.id, INTERRUPTED_SESSION)) });
  return out;
}
