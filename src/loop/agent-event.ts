import type {
  AssistantMessage,
  Message,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserMessage,
} from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { StreamEvent } from "../stream/stream-event.js";

/** Why `runAgent` stopped. */
export type AgentStopReason =
  | "end_turn"
  | "stop_sequence"
  | "refusal"
  | "max_turns"
  | "max_tokens"
  | "error"
  | "aborted"
  /** The user refused a tool call and stopped the turn (`PermissionDecision.interrupt`): they say what next. */
  | "denied";

/**
 * Which agent an event comes from: empty for the top-level run; a sub-agent's is its parent's path plus the
 * id of the tool_use (the Task call) that started it, so `["toolu_1", "toolu_7"]` is a grandchild. A UI tells
 * a child's events from its parent's by this path alone; the events of a child arrive in the parent's stream
 * between the Task call's `tool-call-start` and `tool-call-end`.
 */
export type AgentPath = readonly string[];

/** What every loop event carries besides its own fields. */
interface EventBase {
  /** The run's model call count when the event happened (1 for the first request). */
  turn: number;
  agentPath: AgentPath;
}

/**
 * Everything `runAgent` yields: the provider's stream events (tagged with the turn) and the loop's own.
 * The last event of a run is always `agent-end`, carrying the whole transcript (a child's `agent-end` appears
 * in its parent's stream too, with the child's `agentPath`).
 */
export type AgentEvent =
  | (StreamEvent & EventBase)
  | ({ type: "turn-start"; request: ModelRequest } & EventBase)
  | ({ type: "tool-call-start"; block: ToolUseBlock } & EventBase)
  /** What a running call reported through `ToolContext.progress` (e.g. Bash output as it arrives), between its start and end. */
  | ({ type: "tool-progress"; toolUseId: string; text: string } & EventBase)
  | ({
      type: "tool-call-end";
      block: ToolUseBlock;
      result: ToolResultBlock;
      durationMs: number;
    } & EventBase)
  /** A message appended to the transcript (assistant after its stream ends; user with tool results). */
  | ({ type: "message"; message: Message } & EventBase)
  /**
   * The history was replaced (`RunAgentOptions.replaceHistory`, e.g. compaction) before this turn's request:
   * `before` messages became `after`, for `reason`. The next request starts a new prompt-cache prefix epoch.
   */
  | ({
      type: "history-replaced";
      reason: string;
      before: number;
      after: number;
      /** The estimated request size before and after, when the replacement said (compaction does). */
      tokensBefore?: number;
      tokensAfter?: number;
      /** The replacement's own model call (a summary), already added to the run's usage. */
      usage?: Usage;
    } & EventBase)
  /**
   * Something the user should know that does not stop the run: the loop's own (`max_tokens_retry`,
   * `empty_response`) and those `prepareRequest` reports through `info.warn` (the context's `prefix-broken`,
   * `reminder-source-failed`), in the order they happened.
   */
  | ({ type: "warning"; code: string; message: string } & EventBase)
  | {
      type: "agent-end";
      reason: AgentStopReason;
      messages: Message[];
      /** Summed over all turns. */
      usage: Usage;
      lastMessage?: AssistantMessage;
      /** `retryAfterMs`: how long the server asked to wait (a rate limit's `retry-after`), when it said. */
      error?: { type: string; message: string; retryAfterMs?: number };
      agentPath: AgentPath;
    };

/** How a run ended: the payload of its `agent-end` event. */
export type AgentResult = Omit<Extract<AgentEvent, { type: "agent-end" }>, "type" | "agentPath">;

export type { UserMessage };
