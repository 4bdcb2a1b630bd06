import type { ContentBlock } from "./content.js";
import type { StopReason } from "./stop-reason.js";
import type { Usage } from "./usage.js";

export interface UserMessage {
  role: "user";
  content: ContentBlock[];
}

export interface AssistantMessage {
  role: "assistant";
  content: ContentBlock[];
  /** Absent on messages built by hand (e.g. a prefill). */
  stop_reason?: StopReason;
  usage?: Usage;
  model?: string;
  /** The provider's message id, when it gives one. */
  id?: string;
  /** The stream ended before the message was complete (mid-stream error, cut connection, abort). */
  incomplete?: boolean;
  /** Set when `stop_reason` is `error`. */
  error?: {
    type: string;
    message: string;
    status?: number;
    retryable?: boolean;
    /** How long the server asked to wait before the next request (`retry-after`), when it said. */
    retryAfterMs?: number;
  };
  /** Provider-only data for the whole message (e.g. OpenAI Responses reasoning items). */
  meta?: Record<string, unknown>;
}

export type Message = UserMessage | AssistantMessage;
