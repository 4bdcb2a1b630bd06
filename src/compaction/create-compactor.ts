import { applyCacheBreakpoints } from "../context/index.js";
import type { HistoryReplacement, ReplaceHistory, ReplaceHistoryInfo } from "../loop/history-replacement.js";
import type {
  AssistantMessage,
  Message,
  TextBlock,
  ToolDefinition,
  Usage,
  UserMessage,
} from "../messages/index.js";
import { promptTooLong } from "../providers/http/prompt-too-long.js";
import type { ModelRequest, Provider } from "../providers/provider.js";
import {
  estimateJsonTokens,
  estimateMessagesTokens,
  estimateStableTokens,
  reportedTokens,
} from "./estimate-tokens.js";
import { latestPrompt } from "./latest-prompt.js";
import { splitHistory } from "./split-history.js";
import { extractSummary, summaryMessage, summaryPrompt } from "./summary-prompt.js";
import { type TrimResult, trimHistory } from "./trim-history.js";

/** The reason a compacted history carries: the prefix diagnostic and the session log name it. */
export const COMPACTED = "compacted";
/** The reason of a history made smaller without a summary (see `trimHistory`). */
export const TRIMMED = "trimmed";

/** When and how much to compact. Every field has a default sized from the model's limits. */
export interface CompactionSettings {
  /** Compact on its own when the next request would pass the threshold; default true. */
  auto?: boolean;
  /**
   * The threshold in tokens. Default: the context window less the room the answer needs (`maxTokens`, at
   * most 32,000) and `reserveTokens`. A number between 0 and 1 is a share of the window.
   */
  threshold?: number;
  /** Room kept free besides the answer's; default 10% of the window, at most 16,000 tokens. */
  reserveTokens?: number;
  /** The newest messages kept verbatim, in estimated tokens; default 10% of the window, at most 20,000. */
  keepRecentTokens?: number;
  /** max_tokens of the summarisation request; default 8,192 (less when the answer room is smaller). */
  summaryMaxTokens?: number;
}

export interface CompactorOptions extends CompactionSettings {
  provider: Provider;
  model: string;
  contextWindow: number;
  /** max_tokens of the session's requests: the room an answer needs. */
  maxTokens: number;
  /** The session's `system` and `tools` now: the summarisation request sends them unchanged (the cache prefix). */
  base: () => { system: TextBlock[]; tools: ToolDefinition[] };
  cacheTtl?: "5m" | "1h";
  /**
   * Told when an automatic compaction's summary failed (twice) and there was nothing to trim either: the run
   * goes on with the history it had. (When a trim could be made, the replacement's `notice` says so instead.)
   */
  onError?: (error: Error) => void;
}

/** What one compaction did. */
export interface Compaction extends HistoryReplacement {
  /** The summary as the model wrote it (tags removed). */
  summary: string;
  /** Messages of the history that was replaced. */
  before: number;
  tokensBefore: number;
  tokensAfter: number;
  /** What the summarisation call used (it is a model call like any other: it costs). */
  usage: Usage;
}

/** The summarisation request and the history that would follow it, before anything is sent. */
export interface CompactionPreview {
  request: ModelRequest;
  /** The messages that would be replaced, and the ones kept verbatim after the summary. */
  removed: number;
  kept: Message[];
  tokensBefore: number;
  threshold: number;
}

export interface Compactor {
  /** The threshold in tokens above which the automatic step compacts. */
  readonly threshold: number;
  /**
   * The most input tokens a request may have: the window less the room its answer needs (`maxTokens`, at most
   * half the window) and a small margin for what the estimate misses.
   */
  readonly limit: number;
  /**
   * The size of the next request with these messages: the larger of what the server reported and the
   * estimate (see `contextTokens`), scaled by what a provider's "prompt too long" taught (see `replaceHistory`).
   */
  tokens(messages: readonly Message[]): number;
  /** The estimated size of a whole request (system, tools, messages; images by their own rule). */
  requestTokens(request: Pick<ModelRequest, "system" | "tools" | "messages">): number;
  /**
   * The loop's `replaceHistory`. Before every request: when the next request would pass the threshold (and
   * `auto` is on), or the provider answered "prompt too long" (`info.overflow`), it compacts (a summary,
   * retried once); when the summary cannot be written, it trims the history instead (`trimHistory`, no model
   * call, said in the replacement's `notice`); and whatever the route, the result is brought under `limit`.
   * With `auto` off it only trims a history that would not fit at all. It never throws but for an abort.
   */
  readonly replaceHistory: ReplaceHistory;
  /**
   * Compacts now (`/compact`): asks the model for a summary with the session's cached prefix and returns the
   * new history. Throws when there is nothing to compact or the summary call fails.
   */
  compact(
    messages: readonly Message[],
    options?: { focus?: string; signal?: AbortSignal },
  ): Promise<Compaction>;
  /** What `compact` would send, and what would be kept, without sending anything (`mitsu inspect --compact`). */
  preview(messages: readonly Message[], focus?: string): CompactionPreview;
}

/**
 * The summarisation request: the transcript as it was sent (same `system`, same `tools`, every message
 * unchanged) plus the instruction at the end, in the newest user message when the transcript ends with one,
 * so the request extends the previous one and reads its prompt cache instead of paying for it again.
 */
export function summaryRequest(
  messages: readonly Message[],
  base: { system: TextBlock[]; tools: ToolDefinition[] },
  options: { model: string; maxTokens: number; focus?: string; cacheTtl?: "5m" | "1h" },
): ModelRequest {
  const instruction: TextBlock = { type: "text", text: summaryPrompt(options.focus) };
  const last = messages.at(-1);
  const tail: Message[] =
    last?.role === "user"
      ? [...messages.slice(0, -1), { ...last, content: [...last.content, instruction] }]
      : [...messages, { role: "user", content: [instruction] }];
  const request: ModelRequest = {
    model: options.model,
    system: base.system,
    tools: base.tools,
    messages: tail,
    maxTokens: options.maxTokens,
  };
  return applyCacheBreakpoints(request, options.cacheTtl ? { ttl: options.cacheTtl } : {});
}

/** The compacted history: the summary (with the user's latest words when they were removed), then the kept tail. */
export function compactedHistory(
  summary: string,
  removed: readonly Message[],
  kept: readonly Message[],
): Message[] {
  const keptPrompt = latestPrompt(kept);
  const latest = keptPrompt === undefined ? latestPrompt(removed) : undefined;
  const first = kept[0];
  const text = summaryMessage(summary, latest, kept.length === 0);
  const block: TextBlock = { type: "text", text };
  if (first?.role === "user") {
    const merged: UserMessage = { ...first, content: [block, ...first.content] };
    return [merged, ...kept.slice(1)];
  }
  return [{ role: "user", content: [block] }, ...kept];
}

/** How many times the summary is asked for before the history is trimmed instead. */
const SUMMARY_ATTEMPTS = 2;
/** After a summary failed twice, how many compactions trim at once before a summary is asked for again. */
const SUMMARY_COOLDOWN = 3;

export function createCompactor(options: CompactorOptions): Compactor {
  const window = options.contextWindow;
  const api = options.provider.api;
  // The answer's room, at most half the window: a model configured with max_tokens as large as its window
  // (some local models) must still get requests, not a compaction before each one.
  const answerRoom = Math.min(options.maxTokens, 32_000, Math.floor(window / 2));
  const reserve = options.reserveTokens ?? Math.min(16_000, Math.floor(window * 0.1));
  // The estimate is characters / 4: a margin for what it misses (each block's framing on the wire).
  const margin = Math.max(200, Math.floor(window * 0.025));
  const limit = Math.max(1, window - Math.min(options.maxTokens, Math.floor(window / 2)) - margin);
  const threshold = Math.min(
    limit,
    options.threshold === undefined
      ? Math.max(1, window - answerRoom - reserve)
      : options.threshold > 0 && options.threshold < 1
        ? Math.floor(window * options.threshold)
        : options.threshold,
  );
  const keepRecent = options.keepRecentTokens ?? Math.min(20_000, Math.floor(window * 0.1));
  const summaryMaxTokens = options.summaryMaxTokens ?? Math.min(8_192, answerRoom);
  /**
   * Real tokens per estimated token, learnt from "prompt too long" answers (which say, or show, that the
   * estimate was short: a dense language, a tokenizer unlike the chars/4 rule). Only ever grows.
   */
  let scale = 1;
  /** Compactions left that trim without asking for a summary (after one failed twice). */
  let skipSummaries = 0;
  const fixed = () => {
    const base = options.base();
    return estimateStableTokens(base.system) + estimateStableTokens(base.tools);
  };
  const estimate = (messages: readonly Message[]) =>
    Math.ceil(scale * (fixed() + estimateMessagesTokens(messages, api)));
  const tokens = (messages: readonly Message[]) =>
    Math.max(estimate(messages), reportedTokens(messages, api) ?? 0);
  const requestTokens: Compactor["requestTokens"] = (request) =>
    Math.ceil(
      scale *
        (estimateStableTokens(request.system) +
          estimateStableTokens(request.tools) +
          estimateMessagesTokens(request.messages, api)),
    );
  // The verbatim tail is at most half of the transcript: a compaction always frees at least half of it.
  const split = (messages: readonly Message[]) =>
    splitHistory(messages, Math.min(keepRecent, Math.floor(estimateMessagesTokens(messages, api) / 2)), api);
  /** `trimHistory` with sizes in real tokens (system and tools included), whatever `scale` says. */
  const trim = (messages: readonly Message[], target: number, hard = target): TrimResult => {
    const room = (n: number) => Math.max(1, Math.floor(n / scale) - fixed());
    return trimHistory(messages, {
      targetTokens: room(target),
      maxTokens: room(hard),
      keepRecentTokens: Math.min(keepRecent, room(target) / 2),
      api,
    });
  };
  /**
   * The transcript the summary request carries, and its max_tokens, so that the request never passes the
   * window either (input and answer): the whole transcript (the cached prefix) when it leaves room for at least
   * 1,024 tokens of summary, the answer room shrunk to what is left; else only the part the summary replaces
   * (the kept tail follows the summary verbatim anyway); else a trimmed copy of that part.
   */
  const summarySource = (messages: readonly Message[], removed: readonly Message[], focus?: string) => {
    const room = window - estimateJsonTokens(summaryPrompt(focus)) - margin;
    const left = room - estimate(messages);
    if (left >= Math.min(summaryMaxTokens, 1_024))
      return { messages, maxTokens: Math.min(summaryMaxTokens, left) };
    const fit = room - summaryMaxTokens;
    if (estimate(removed) <= fit) return { messages: removed, maxTokens: summaryMaxTokens };
    return { messages: trim(removed, Math.floor(fit * 0.9), fit).messages, maxTokens: summaryMaxTokens };
  };

  const preview = (messages: readonly Message[], focus?: string): CompactionPreview => {
    const parts = split(messages);
    if (!parts) throw new Error("There is nothing to compact yet.");
    const source = summarySource(messages, parts.removed, focus);
    const request = summaryRequest(source.messages, options.base(), {
      model: options.model,
      maxTokens: source.maxTokens,
      ...(focus ? { focus } : {}),
      ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
    });
    return {
      request,
      removed: parts.removed.length,
      kept: parts.kept,
      tokensBefore: tokens(messages),
      threshold,
    };
  };

  const compact: Compactor["compact"] = async (messages, compactOptions = {}) => {
    const parts = split(messages);
    if (!parts) throw new Error("There is nothing to compact yet.");
    const { request } = preview(messages, compactOptions.focus);
    let answer: AssistantMessage | undefined;
    for await (const event of options.provider.stream(
      request,
      compactOptions.signal ? { signal: compactOptions.signal } : {},
    )) {
      if (event.type === "message-end") answer = event.message;
    }
    if (!answer || answer.stop_reason === "error" || answer.stop_reason === "aborted") {
      const why = answer?.error?.message ?? answer?.stop_reason ?? "the stream ended without a message";
      throw new Error(`The summary could not be written: ${why}`);
    }
    const written = answer.content
      .filter((b): b is TextBlock => b.type === "text")
      .map((b) => b.text)
      .join("");
    const summary = extractSummary(written);
    if (summary === "") throw new Error("The summary could not be written: the model answered no text.");
    let history = compactedHistory(summary, parts.removed, parts.kept);
    // The kept tail may itself be too large (one huge tool result): it is cut to fit.
    if (estimate(history) > threshold) history = trim(history, threshold).messages;
    return {
      messages: history,
      reason: COMPACTED,
      summary,
      before: messages.length,
      tokensBefore: tokens(messages),
      tokensAfter: estimate(history),
      usage: answer.usage ?? {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
  };

  /** The deterministic fallback: the history trimmed, and a notice that says what was done and why. */
  const trimmed = (messages: readonly Message[], why: string): HistoryReplacement | undefined => {
    const done = trim(messages, Math.floor(threshold * 0.6), limit);
    if (done.messages === messages || done.tokensAfter >= done.tokensBefore) return undefined;
    const parts: string[] = [];
    if (done.resultsRemoved > 0) parts.push(`${done.resultsRemoved} old tool results replaced by a note`);
    if (done.messagesDropped > 0) parts.push(`the ${done.messagesDropped} oldest messages dropped`);
    if (done.blocksCut > 0) parts.push(`${done.blocksCut} oversized blocks cut`);
    const tokensAfter = estimate(done.messages);
    return {
      messages: done.messages,
      reason: TRIMMED,
      tokensBefore: tokens(messages),
      tokensAfter,
      notice: `${why}; the history was trimmed instead (${parts.join(", ") || "nothing removed"}): about ${tokensAfter.toLocaleString("en-US")} tokens now, of a ${window.toLocaleString("en-US")}-token window.`,
    };
  };

  /** Learns from a "prompt too long" answer how far the estimate was short. */
  const learn = (messages: readonly Message[], overflow: NonNullable<ReplaceHistoryInfo["overflow"]>) => {
    const estimated = Math.max(1, estimate(messages));
    // Without the provider's count, the refusal still says the request was at least the window less the answer.
    const real = overflow.tokens ?? window - options.maxTokens;
    scale *= Math.min(4, Math.max(1.25, real / estimated) * 1.05);
  };

  const replaceHistory: ReplaceHistory = async (messages, info) => {
    if (info.overflow) learn(messages, info.overflow);
    const size = tokens(messages);
    const due = info.overflow !== undefined || (options.auto !== false && size >= threshold);
    if (!due) {
      if (size <= limit) return undefined;
      return trimmed(messages, "The next request would not fit the context window");
    }
    let failure: Error | undefined;
    // Right after a summary failed twice, the next compactions trim at once: no more calls to a failing model.
    const attempts = skipSummaries > 0 ? 0 : SUMMARY_ATTEMPTS;
    skipSummaries = Math.max(0, skipSummaries - 1);
    for (let attempt = 0; attempt < attempts && options.auto !== false; attempt++) {
      try {
        return await compact(messages, { signal: info.signal });
      } catch (error) {
        if (info.signal.aborted) return undefined;
        failure = error instanceof Error ? error : new Error(String(error));
        // The summary request itself was too long for the provider's count: learn, and the retry is smaller.
        const tooLong = promptTooLong({ type: "", message: failure.message });
        if (tooLong) learn(messages, tooLong);
      }
    }
    if (failure) skipSummaries = SUMMARY_COOLDOWN;
    const why = failure
      ? `Automatic compaction failed twice (${failure.message})`
      : attempts === 0 && options.auto !== false
        ? "Automatic compaction failed a moment ago"
        : "The next request would not fit the context window";
    const fallback = trimmed(messages, why);
    // Told only when nothing could be done: a trim says what it did in its notice.
    if (!fallback && failure) options.onError?.(failure);
    return fallback;
  };

  return { threshold, limit, tokens, requestTokens, replaceHistory, compact, preview };
}
