import type { Message, ToolResultBlock, ToolUseBlock } from "../messages/index.js";

/** The result of a call whose `run` had started when the session stopped, and whose result was never logged. */
export const STATE_UNKNOWN_MESSAGE =
  "state unknown: the session stopped while this call was running; check before retrying";

/** The result of a call that never started (it was waiting for its turn or for permission when the session stopped). */
export const NOT_STARTED_MESSAGE = "The session stopped before this tool call started; it did not run.";

/** What the log knows about the last message's calls (`LoadedSession.calls`). */
export interface LoggedCalls {
  started: ReadonlySet<string>;
  results: ReadonlyMap<string, ToolResultBlock>;
}

/**
 * Makes a loaded transcript safe to continue: when the process died after an assistant message with
 * tool_use blocks but before their results message was logged, each pending call is answered — with its
 * result when the log has it (it finished), "state unknown" when its run had started (it may have had
 * effects), "did not run" when it had not. So the next request is valid (every tool_use answered in the next
 * user message) and the model is told the truth. Without `logged` (a format-1 file, which records no starts),
 * every pending call is "state unknown": nothing says it did not run.
 */
export function resumeMessages(messages: readonly Message[], logged?: LoggedCalls): Message[] {
  const out = [...messages];
  const last = out.at(-1);
  if (last?.role !== "assistant") return out;
  const pending = last.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  if (pending.length === 0) return out;
  out.push({ role: "user", content: pending.map((b) => answer(b.id, logged)) });
  return out;
}

function answer(id: string, logged: LoggedCalls | undefined): ToolResultBlock {
  const result = logged?.results.get(id);
  if (result) return result;
  const text = logged && !logged.started.has(id) ? NOT_STARTED_MESSAGE : STATE_UNKNOWN_MESSAGE;
  return { type: "tool_result", tool_use_id: id, content: text, is_error: true };
}
