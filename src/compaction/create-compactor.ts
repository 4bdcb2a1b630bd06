import { applyCacheBreakpoints, isReminderBlock } from "../context/index.js";
import type { HistoryReplacement, ReplaceHistory } from "../loop/history-replacement.js";
import type {
  AssistantMessage,
  Message,
  TextBlock,
  ToolDefinition,
  Usage,
  UserMessage,
} from "../messages/index.js";
import type { ModelRequest, Provider } from "../providers/provider.js";
import { contextTokens, estimateJsonTokens } from "./estimate-tokens.js";
import { splitHistory } from "./split-history.js";
import { extractSummary, summaryMessage, summaryPrompt } from "./summary-prompt.js";

/** The reason a compacted history carries: the prefix diagnostic and the session log name it. */
export const COMPACTED = "compacted";

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
  /** Told when an automatic compaction failed; the run goes on with the history it had. */
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
  /** The estimated size of the next request with these messages (see `contextTokens`). */
  tokens(messages: readonly Message[]): number;
  /**
   * The loop's `replaceHistory`: compacts when `auto` is on and the next request would pass the threshold.
   * A failed summary is reported to `onError` and the history is kept (the run goes on).
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

const textOf = (message: Message) =>
  message.content
    .filter((b): b is TextBlock => b.type === "text" && !isReminderBlock(b))
    .map((b) => b.text)
    .join("\n")
    .trim();

/** The user's newest prompt among `messages` (a user message with text of its own and no tool results). */
function latestPrompt(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role !== "user") continue;
    if (m.content.some((b) => b.type === "tool_result")) continue;
    const text = textOf(m);
    if (text) return text;
  }
  return undefined;
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

export function createCompactor(options: CompactorOptions): Compactor {
  const window = options.contextWindow;
  const answerRoom = Math.min(options.maxTokens, 32_000);
  const reserve = options.reserveTokens ?? Math.min(16_000, Math.floor(window * 0.1));
  const threshold =
    options.threshold === undefined
      ? Math.max(1, window - answerRoom - reserve)
      : options.threshold > 0 && options.threshold < 1
        ? Math.floor(window * options.threshold)
        : options.threshold;
  const keepRecent = options.keepRecentTokens ?? Math.min(20_000, Math.floor(window * 0.1));
  const summaryMaxTokens = options.summaryMaxTokens ?? Math.min(8_192, answerRoom);
  const fixed = () => estimateJsonTokens(options.base().system) + estimateJsonTokens(options.base().tools);
  const tokens = (messages: readonly Message[]) => contextTokens(messages, fixed());

  // The verbatim tail is at most half of the transcript: a compaction always frees at least half of it.
  const split = (messages: readonly Message[]) =>
    splitHistory(messages, Math.min(keepRecent, Math.floor(estimateJsonTokens(messages) / 2)));

  const preview = (messages: readonly Message[], focus?: string): CompactionPreview => {
    const parts = split(messages);
    if (!parts) throw new Error("There is nothing to compact yet.");
    const request = summaryRequest(messages, options.base(), {
      model: options.model,
      maxTokens: summaryMaxTokens,
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
    const history = compactedHistory(summary, parts.removed, parts.kept);
    const base = options.base();
    return {
      messages: history,
      reason: COMPACTED,
      summary,
      before: messages.length,
      tokensBefore: tokens(messages),
      tokensAfter:
        estimateJsonTokens(base.system) + estimateJsonTokens(base.tools) + estimateJsonTokens(history),
      usage: answer.usage ?? {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
  };

  const replaceHistory: ReplaceHistory = async (messages, info) => {
    if (options.auto === false) return undefined;
    if (tokens(messages) < threshold) return undefined;
    try {
      return await compact(messages, { signal: info.signal });
    } catch (error) {
      if (info.signal.aborted) return undefined;
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      return undefined;
    }
  };

  return { threshold, tokens, replaceHistory, compact, preview };
}
