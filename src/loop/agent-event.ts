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
  | "aborted";

/**
 * Everything `runAgent` yields: the provider's stream events (tagged with the turn) and the loop's own.
 * The last event is always `agent-end`, carrying the whole transcript.
 */
export type AgentEvent =
  | (StreamEvent & { turn: number })
  | { type: "turn-start"; turn: number; request: ModelRequest }
  | { type: "tool-call-start"; turn: number; block: ToolUseBlock }
  /** What a running call reported through `ToolContext.progress` (e.g. Bash output as it arrives), between its start and end. */
  | { type: "tool-progress"; turn: number; toolUseId: string; text: string }
  | { type: "tool-call-end"; turn: number; block: ToolUseBlock; result: ToolResultBlock; durationMs: number }
  /** A message appended to the transcript (assistant after its stream ends; user with tool results). */
  | { type: "message"; turn: number; message: Message }
  | { type: "warning"; turn: number; code: string; message: string }
  | {
      type: "agent-end";
      reason: AgentStopReason;
      messages: Message[];
      /** Summed over all turns. */
      usage: Usage;
      lastMessage?: AssistantMessage;
      error?: { type: string; message: string };
    };

export type { UserMessage };
