import type {
  AssistantMessage,
  ContentBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  UnknownBlock,
  Usage,
} from "../messages/index.js";
import type { JsonPath } from "./json-path.js";

/**
 * The neutral events every provider stream produces, named noun-then-verb with a block id.
 * `id` is the block's position in the assistant message's `content` (as a string), stable for the message.
 *
 * Contract: a provider stream never throws once started. It ends with exactly one `message-end`,
 * which carries the final (possibly partial) message; on failure `message.stop_reason` is `error`
 * (with `message.error`) or `aborted`, and `message.incomplete` is set when content was cut.
 */
export type StreamEvent =
  | { type: "message-start"; model?: string; id?: string }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string; text: string }
  | { type: "thinking-start"; id: string }
  | { type: "thinking-delta"; id: string; delta: string }
  | { type: "thinking-end"; id: string; thinking: string; signature?: string }
  | { type: "tool-input-start"; id: string; toolUseId: string; name: string }
  | {
      type: "tool-input-delta";
      id: string;
      /** The raw JSON fragment, exactly as received. */
      delta: string;
      /** Decoded characters appended to string values, at their JSON path (e.g. `["content"]`). */
      strings: readonly StringChunk[];
    }
  | { type: "tool-input-end"; id: string; block: ToolUseBlock }
  /** A block that arrives whole (redacted thinking, unknown types). */
  | { type: "block"; id: string; block: RedactedThinkingBlock | UnknownBlock | ContentBlock }
  | { type: "usage"; usage: Usage }
  /** A retry is about to happen (HTTP 429/5xx, or a mid-stream overload before any content). */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /**
   * The provider has sent nothing for `silentMs` while a read was pending (repeated as the silence lasts), so a
   * UI can show that it is waiting. At `timeoutMs` (0: never) the connection is dropped and retried.
   */
  | { type: "stream-stalled"; silentMs: number; timeoutMs: number }
  | { type: "message-end"; message: AssistantMessage };

/** Characters appended to the string value at `path`. */
export interface StringChunk {
  path: JsonPath;
  text: string;
}
