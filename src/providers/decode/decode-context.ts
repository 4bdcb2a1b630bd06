import type { IdleOptions } from "../http/idle-watch.js";

/** What every adapter's decoder is given for one response, besides the response itself. */
export interface DecodeContext {
  /** The caller's abort: the stream ends with `stop_reason: "aborted"`. */
  signal?: AbortSignal | undefined;
  /** Decode tool-input strings as they stream (`tool-input-delta.strings`); default true. */
  live?: boolean | undefined;
  /** Tool-use ids the conversation already holds (the request's history): new calls never reuse one. */
  usedToolIds?: Iterable<string> | undefined;
  /** How long the body may stay silent (see `DEFAULT_IDLE_LIMITS`). */
  idle?: IdleOptions | undefined;
}
