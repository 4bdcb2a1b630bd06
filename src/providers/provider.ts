import type { Message, ServerTool, TextBlock, ToolDefinition } from "../messages/index.js";
import type { StreamEvent } from "../stream/stream-event.js";

/** One model call, in the neutral shape: the three fields plus generation settings. */
export interface ModelRequest {
  model: string;
  /** Stable for a session: the prompt-cache prefix starts here. */
  system: TextBlock[];
  tools: ToolDefinition[];
  /** Tools the provider runs itself (web search); only those its `Provider.serverTools` lists. */
  serverTools?: ServerTool[];
  messages: Message[];
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  /** Extended thinking / reasoning budget in tokens, where the provider has it. */
  thinkingBudget?: number;
  /** Vendor-only options, namespaced by provider name (e.g. `{ anthropic: { ... } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

export interface CallOptions {
  /** Honoured at every await: an abort ends the stream with `stop_reason: "aborted"`. */
  signal?: AbortSignal;
  /**
   * Decode string values of tool input as they stream (`tool-input-delta.strings`), for a UI that shows
   * them live. Default true; false skips that work when only the finished input matters.
   */
  liveInput?: boolean;
}

/** The exact HTTP request a provider would send; `mitsu inspect` and `--dump-requests` show it. */
export interface EncodedRequest {
  url: string;
  method: "POST";
  /** Secrets (API keys) replaced by `"<redacted>"`. */
  headers: Record<string, string>;
  body: unknown;
}

/**
 * An adapter for one wire protocol. `stream` never throws once called: every failure, including
 * HTTP errors after retries are exhausted, ends in a `message-end` event with `stop_reason: "error"`.
 */
export interface Provider {
  /** The wire protocol: `anthropic`, `openai-chat`, `openai-responses`, `gemini`. */
  readonly api: string;
  /** The server-side tools this wire protocol offers (`ModelRequest.serverTools`); absent or empty: none. */
  readonly serverTools?: readonly ServerTool["type"][];
  encode(request: ModelRequest): EncodedRequest;
  stream(request: ModelRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
}
