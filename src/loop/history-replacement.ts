import type { Message, Usage } from "../messages/index.js";

/** A new, shorter history to continue from, and why (e.g. "compacted"). */
export interface HistoryReplacement {
  /** The whole new transcript. It must pass `checkTranscript`; the newest message is normally a user message. */
  messages: Message[];
  /** Names the new prompt-cache epoch in the prefix diagnostics and in the session log (e.g. "compacted"). */
  reason: string;
  /** For the session log: the summary that stands for the removed messages. */
  summary?: string;
  /** For the session log and the user: the estimated size of the request before and after the replacement. */
  tokensBefore?: number;
  tokensAfter?: number;
  /** A model call the replacement made (the summary): added to the run's usage, so it is counted and costed. */
  usage?: Usage;
  /**
   * Something the user must be told (a summary that failed and a trim made instead): the loop yields it as a
   * `warning` event (code `history-trimmed`) and gives it to the session log with the new history.
   */
  notice?: string;
}

/** What `replaceHistory` is told before each request. */
export interface ReplaceHistoryInfo {
  turn: number;
  /** Usage summed over the run so far. */
  usage: Usage;
  /** The input tokens of the previous request of this run (fresh + cache reads + cache writes), if known. */
  lastInputTokens?: number;
  /** The model's context window in tokens, when the caller gave it (`RunAgentOptions.contextWindow`). */
  contextWindow?: number;
  /**
   * Set when the history must be made smaller whatever the estimate says: the provider refused the previous
   * request as too long ("prompt is too long", `context_length_exceeded`), or the loop's own check found the
   * prepared request over the window. `tokens` is the request's size when the provider said it.
   */
  overflow?: { tokens?: number };
  signal: AbortSignal;
}

/**
 * The loop's one sanctioned way to remove messages (compaction). Called before each request, before
 * `prepareRequest`, with the transcript as it stands (the tool results of the previous turn included).
 *
 * Contract: return `undefined` to keep the history (the common case: it must be cheap then), or a
 * replacement. The loop checks the replacement with `checkTranscript` (an invalid one ends the run with an
 * `invalid_transcript` error and nothing is sent), swaps it in, yields a `history-replaced` event, gives it to
 * `onHistoryReplaced` (the session log), and tells `prepareRequest` that this request starts a new epoch
 * (`info.newEpoch`), so the prefix diagnostic names the reason instead of reporting a broken prefix. It may
 * call a model itself (a summary); a throw ends the run with reason `error`.
 */
export type ReplaceHistory = (
  messages: readonly Message[],
  info: ReplaceHistoryInfo,
) => HistoryReplacement | undefined | Promise<HistoryReplacement | undefined>;

/** What the session log is given when the history was replaced. */
export interface HistoryReplacedInfo {
  reason: string;
  /** How many messages the history had before. */
  before: number;
  /**
   * The new history, less a trailing user message: that one still goes to `onMessage`, after
   * `prepareRequest` (which may add reminders to it), like any message about to be sent.
   */
  messages: Message[];
  summary?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  usage?: Usage;
  notice?: string;
}
