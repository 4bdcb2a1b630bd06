import type { AgentResult } from "../loop/agent-event.js";
import type { AssistantMessage, Message } from "../messages/index.js";

/** What a finished sub-agent did, for its result line and the terminal's summary. */
export interface SubagentStats {
  /** Model calls that produced an answer (a failed last call counts). */
  turns: number;
  toolCalls: number;
  /** Input (cached or not) and output tokens over all its calls. */
  tokens: number;
  durationMs: number;
}

export function subagentStats(result: AgentResult, durationMs: number): SubagentStats {
  const answers = result.messages.filter((m) => m.role === "assistant");
  const failedLast = result.lastMessage && !answers.includes(result.lastMessage) ? 1 : 0;
  const toolCalls = answers.reduce((n, m) => n + m.content.filter((b) => b.type === "tool_use").length, 0);
  const u = result.usage;
  const tokens =
    u.input_tokens +
    u.output_tokens +
    (u.cache_read_input_tokens ?? 0) +
    (u.cache_creation_input_tokens ?? 0);
  return { turns: answers.length + failedLast, toolCalls, tokens, durationMs };
}

/** `3 turns, 5 tool calls, 12,400 tokens, 4.2 s`. */
export function formatStats(stats: SubagentStats): string {
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  const seconds = stats.durationMs / 1000;
  const time = seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
  return `${plural(stats.turns, "turn")}, ${plural(stats.toolCalls, "tool call")}, ${plural(stats.tokens, "token")}, ${time}`;
}

/** The text of the last assistant message that has any (the sub-agent's answer, or what it said last). */
export function lastText(result: AgentResult): string {
  const candidates: Message[] = [...result.messages];
  if (result.lastMessage && !candidates.includes(result.lastMessage)) candidates.push(result.lastMessage);
  for (let i = candidates.length - 1; i >= 0; i--) {
    const message = candidates[i] as Message;
    if (message.role !== "assistant") continue;
    const text = textOf(message).trim();
    if (text !== "") return text;
  }
  return "";
}

function textOf(message: AssistantMessage): string {
  return message.content
    .filter((b) => b.type === "text")
    .map((b) => (b.type === "text" ? b.text : ""))
    .join("");
}

/** Why a sub-agent stopped short, in words the parent model can act on. */
function whyStopped(result: AgentResult, maxTurns: number | undefined): string {
  switch (result.reason) {
    case "aborted":
      return "it was interrupted";
    case "denied":
      return "the user refused one of its tool calls and stopped the turn";
    case "max_turns":
      return `it reached its limit of ${maxTurns ?? "its"} model calls before finishing`;
    case "max_tokens":
      return "its answer was cut at the output token limit";
    case "refusal":
      return "the model refused to continue";
    case "error":
      return `it failed: ${result.error?.message ?? "unknown error"}`;
    default:
      return `it stopped (${result.reason})`;
  }
}

/**
 * The Task call's result: the sub-agent's final text and one line of stats; on failure (anything but a normal
 * end) an `is_error` result that says why it stopped and quotes the last text it produced.
 */
export function formatSubagentResult(
  result: AgentResult,
  info: { agent: string; durationMs: number; maxTurns?: number },
): { content: string; isError: boolean } {
  const stats = `[${info.agent}: ${formatStats(subagentStats(result, info.durationMs))}]`;
  const text = lastText(result);
  if (result.reason === "end_turn" || result.reason === "stop_sequence") {
    return {
      content: `${text || "(the sub-agent finished without a text answer)"}\n\n${stats}`,
      isError: false,
    };
  }
  const why = `The ${info.agent} sub-agent did not finish: ${whyStopped(result, info.maxTurns)}.`;
  const last = text ? `\nThe last text it produced:\n${text}` : "\nIt produced no text.";
  return { content: `${why}${last}\n\n${stats}`, isError: true };
}
