/**
 * The simulator's public types. Scripts are provider-neutral: the same `SimTurn` is rendered in the wire
 * format of whichever protocol the request came in on: Anthropic Messages, OpenAI Chat Completions, OpenAI
 * Responses or Gemini generateContent.
 */

/** A source a text block cites (a web search result it was written from). */
export interface SimCitation {
  url: string;
  title?: string;
  /** The passage cited (Anthropic `cited_text`); default: the start of the text. */
  citedText?: string;
}

/** One page a scripted web search found. */
export interface SimSearchResult {
  url: string;
  title: string;
  /** Anthropic `page_age`, e.g. "2 days ago". */
  pageAge?: string;
}

/** One scripted content block of an assistant turn. */
export type SimBlock =
  /** `citations` make it an answer written from a web search (Anthropic citations, Responses annotations, Gemini grounding supports). */
  | { type: "text"; text: string; citations?: SimCitation[] }
  /**
   * The provider's own web search, run on its servers within the turn: Anthropic `server_tool_use` +
   * `web_search_tool_result` blocks, a Responses `web_search_call` item, Gemini `groundingMetadata`. The request
   * must offer the search tool; OpenAI Chat has none. `errorCode` makes it a failed search (Anthropic
   * `web_search_tool_result_error`, e.g. "max_uses_exceeded").
   */
  | { type: "web_search"; id?: string; query: string; results?: SimSearchResult[]; errorCode?: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string }
  /** Streamed as `JSON.stringify(input)`. */
  | { type: "tool_use"; id?: string; name: string; input: unknown }
  /** `rawInput` is the exact text streamed; it may be invalid JSON (only for eager tools, see the brief). */
  | { type: "tool_use"; id?: string; name: string; rawInput: string };

export type SimStopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal";

/** One scripted assistant turn: served to exactly one successful request. */
export interface SimTurn {
  content: SimBlock[];
  /** Default: "tool_use" if any tool_use block, else "end_turn". A max_tokens cut overrides it. */
  stopReason?: SimStopReason;
  fault?: SimFault;
  /**
   * Milliseconds the server waits before answering this turn (the model's time to first token): the request
   * stays in flight that long. For tests of concurrency and for benchmarks of latency.
   */
  latencyMs?: number;
}

export type SimFault =
  /**
   * The next `times` (default 1) requests get this HTTP error, in the provider's real error shape, before the
   * turn is served. `retryAfterSeconds` / `retryAfterMs` set the `retry-after` / `retry-after-ms` headers.
   */
  | { kind: "http"; status: number; retryAfterSeconds?: number; retryAfterMs?: number; times?: number }
  /**
   * After `afterEvents` SSE events (message_start and ping count), an `event: error` frame, then the stream ends
   * with no message_delta / message_stop. `errorType` defaults to "overloaded_error". If the turn has fewer
   * events, the error follows the last one. In non-streaming mode the request gets the matching HTTP error.
   * Other protocols count their own SSE events (every `data:` chunk) and end in their own error shape:
   * OpenAI Chat a `data: {"error":{…}}` chunk (no `[DONE]`), Responses an `error` event then `response.failed`,
   * Gemini a `data: {"error":{code,message,status}}` chunk. `errorType` is an Anthropic error type, translated
   * (overloaded_error → 503 server_error / UNAVAILABLE, rate_limit_error → 429, api_error → 500, …).
   */
  | { kind: "error-event"; afterEvents: number; errorType?: string }
  /**
   * The socket is destroyed after `afterBytes` bytes of response body (after the whole body, unterminated,
   * when it is shorter).
   */
  | { kind: "disconnect"; afterBytes: number }
  /**
   * After `afterBytes` bytes of response body the server goes silent: nothing more is written and the connection
   * stays open (until the client gives up or the simulator closes), as a stalled upstream does.
   */
  | { kind: "stall"; afterBytes: number }
  /**
   * Generation stops after `afterChars` characters (code points) of block content (text, thinking, tool input):
   * stop_reason max_tokens; a cut tool_use gets no content_block_stop, as on the real API.
   */
  | { kind: "max-tokens"; afterChars: number };

/** A script entry: a turn, or a function of the request that returns one (for dynamic answers). */
export type ScriptEntry = SimTurn | ((request: LoggedRequest) => SimTurn);

/**
 * Token counts as the provider reports them (Anthropic names). For OpenAI and Gemini requests the automatic
 * prefix cache's hit is `cache_read_input_tokens`, the rest of the prompt `input_tokens`, and nothing is written.
 */
export interface SimUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  /** The cache write split by TTL, as in Anthropic's `usage.cache_creation`. */
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** The wire protocols the simulator speaks (by the endpoint a request arrived on). */
export type SimProtocol = "anthropic" | "openai-chat" | "openai-responses" | "gemini";

/** Every request the simulator received, in arrival order, including the rejected ones. */
export interface LoggedRequest {
  protocol: SimProtocol;
  method: string;
  /** The path without the query string. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (the raw text when it was not JSON; undefined when empty). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read any field of the request they sent
  body: any;
  /** The HTTP status answered. */
  status: number;
  /** The error message answered (HTTP errors, script errors); absent for served turns. */
  error?: string;
  /** Usage reported for a served turn. */
  usage?: SimUsage;
  /** Which fault of the turn was applied to this request, if any. */
  fault?: SimFault["kind"];
}

/** Progress marks of the generation, for tests that order client-side observations against the server. */
export interface SimMark {
  kind: "generation-end";
  /** Index of the request in `Simulator.requests`. */
  request: number;
  /** Content block index. */
  block: number;
}

export interface SimulatorOptions {
  /** Served in order, one per successful request. */
  script?: ScriptEntry[];
  /** Characters per text_delta / thinking_delta (default 12). */
  textChunk?: number;
  /** Characters per input_json_delta (default 64). */
  inputChunk?: number;
  /** Pause between delta events, in ms (default 0). */
  delayMs?: number;
  /** Token estimate: characters per token (default 4). */
  charsPerToken?: number;
  /**
   * Smallest prefix, in tokens, that a breakpoint may cache (default 1024); also the smallest hit of the
   * automatic prefix cache of OpenAI and Gemini requests (see PrefixCache).
   */
  minCacheableTokens?: number;
  /** Clock for cache TTLs (default Date.now). */
  now?: () => number;
  /** Host to listen on (default 127.0.0.1; the port is always chosen by the OS). */
  host?: string;
  /** Called synchronously at generation progress marks (see SimMark). Must not throw. */
  onMark?: (mark: SimMark) => void;
  /**
   * The usage the server reports (the request log keeps the honest counts whatever this says): "honest"
   * (default); "none", as OpenAI-compatible servers that report nothing (no usage object on the OpenAI and Gemini
   * wires, zeros on Anthropic's, which always has one); or a function of the honest counts, for a server that
   * under-reports (e.g. `(u) => ({ ...u, input_tokens: 100, cache_read_input_tokens: 0 })`).
   */
  reportUsage?: "honest" | "none" | ((usage: SimUsage) => SimUsage);
  /**
   * The model's context window in tokens, one for every model or by model id: a request whose prompt (by the
   * simulator's count) passes it — with its max tokens, for Anthropic and OpenAI — is refused before any turn is
   * served, with the provider's own error: Anthropic 400 "prompt is too long: N tokens > W maximum", OpenAI 400
   * `context_length_exceeded`, Gemini 400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum…".
   * Default: no limit.
   */
  contextWindow?: number | Record<string, number>;
}

export interface Simulator {
  /** Base URL, e.g. http://127.0.0.1:43123 (what ANTHROPIC_BASE_URL takes). */
  readonly url: string;
  readonly requests: LoggedRequest[];
  /** Appends entries to the script. */
  enqueue(...entries: ScriptEntry[]): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}
