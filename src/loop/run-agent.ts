import {
  type AssistantMessage,
  addUsage,
  type ContentBlock,
  emptyUsage,
  type Message,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  type Usage,
} from "../messages/index.js";
import { type PromptTooLong, promptTooLong } from "../providers/http/prompt-too-long.js";
import type { CallOptions, ModelRequest, Provider } from "../providers/provider.js";
import type { AgentEvent, AgentPath, AgentResult, AgentStopReason } from "./agent-event.js";
import { AsyncQueue } from "./async-queue.js";
import { checkTranscript } from "./check-transcript.js";
import type { HistoryReplacedInfo, ReplaceHistory } from "./history-replacement.js";
import type { Journal } from "./journal.js";
import {
  cutCallMessage,
  cutToolCall,
  DEFAULT_MAX_TOKENS_CAP,
  type MaxTokensPolicy,
  notRunInCutMessage,
} from "./max-tokens-policy.js";
import type { CanUseTool } from "./permission.js";
import { errorResult, INTERRUPTED_MESSAGE, type RunToolsOptions, runTools } from "./run-tools.js";
import type { Spawner } from "./spawn.js";
import { definitionsOf, type Tool } from "./tool.js";
import { ToolState } from "./tool-state.js";

export type { AgentResult };

/** What `prepareRequest` is told besides the request. */
export interface PrepareRequestInfo {
  turn: number;
  /**
   * Set on the first request after the history was replaced: this request starts a new prompt-cache epoch
   * for `reason`, so it is not compared with the one before (the prefix diagnostic names the epoch instead).
   */
  newEpoch?: { reason: string };
  /** Reports a warning; the loop yields it as a `warning` event right after `prepareRequest` returns. */
  warn: (code: string, message: string) => void;
}

export interface RunAgentOptions {
  provider: Provider;
  model: string;
  /** A string is sent as one text block (none when empty). Stable for the run: the cache prefix starts here. */
  system?: string | TextBlock[];
  tools?: Tool<never>[];
  /** The transcript so far; the new user message, if any, is the last one. Not mutated. */
  messages: Message[];
  /** The most model calls this run makes (a max_tokens retry and a pause_turn continuation are calls). Default 50. */
  maxTurns?: number;
  /** Default 8192. */
  maxTokens?: number;
  maxTokensPolicy?: MaxTokensPolicy;
  signal?: AbortSignal;
  /** Asked before each call whose input is valid; a deny is the call's result and the tool never runs. */
  canUseTool?: CanUseTool;
  /**
   * Called before each request with the request about to be sent; may return a changed request (the context
   * module adds `<system-reminder>` blocks and cache breakpoints here). What it returns is what is sent AND
   * what is stored in the transcript (history is append-only, as sent). It may change and add messages, but
   * not remove any: removing is `replaceHistory`'s job.
   */
  prepareRequest?: (request: ModelRequest, info: PrepareRequestInfo) => ModelRequest | Promise<ModelRequest>;
  /** The sanctioned history-replacement step (compaction); see `ReplaceHistory`. */
  replaceHistory?: ReplaceHistory;
  /**
   * The session-log hook for a replaced history: awaited before the replaced history's first request. If it
   * throws, the run stops with reason `error` (nothing unlogged is sent).
   */
  onHistoryReplaced?: (info: HistoryReplacedInfo) => void | Promise<void>;
  /**
   * The session-log hook: called once with each message that enters the transcript, in the form that is sent,
   * before the next request is sent. That is the caller's last message when it is a user message (the new
   * prompt), each assistant message as soon as its stream ends, and each user message of tool results just
   * before the request that carries it (after `prepareRequest` may have added reminders to it) or at the end
   * of the run. If it throws, the run stops with reason `error`: a message that cannot be logged is never sent.
   */
  onMessage?: (message: Message) => void | Promise<void>;
  /** Session-log hook before each tool's `run`; see `RunToolsOptions.onToolStart`. */
  onToolStart?: RunToolsOptions["onToolStart"];
  /** Session-log hook with each tool result as it is settled; see `RunToolsOptions.onToolResult`. */
  onToolResult?: RunToolsOptions["onToolResult"];
  temperature?: number;
  thinkingBudget?: number;
  providerOptions?: ModelRequest["providerOptions"];
  /** Passed to the provider (`CallOptions.liveInput`): false when nobody shows tool input as it streams. */
  liveInput?: boolean;
  /**
   * Asked before each request: another provider and model for this turn (a skill the model loaded names its own
   * `model`), or undefined for `provider` and `model`. Reads the tool state; must not throw.
   */
  selectModel?: (state: ToolState) => { provider: Provider; model: string } | undefined;
  /** `ToolContext.state`, shared by the tools of the run (and of later runs of the conversation). Default: new. */
  toolState?: ToolState;
  /** Tags every event and `ToolContext.agentPath`; default `[]` (the top level). A spawner sets it for a child. */
  agentPath?: AgentPath;
  /** Wraps each model call and each tool call (durable runs, replay); see `Journal`. Default: straight through. */
  journal?: Journal;
  /** Gives tools `ToolContext.spawn`, to start sub-agents; see `Spawner`. */
  spawn?: Spawner;
  /** The model's context window in tokens, handed to `replaceHistory` (so it can tell how full it is). */
  contextWindow?: number;
  /**
   * The estimated size of a request in tokens (the compactor's `requestTokens`). With `contextWindow`, every
   * prepared request is checked before it is sent: one whose size plus its `maxTokens` (at most half the window)
   * would pass the window makes the loop ask `replaceHistory` again (with `info.overflow`), once; if it still would
   * not fit, the run ends with a `context_overflow` error and nothing is sent.
   */
  requestTokens?: (request: ModelRequest) => number;
}

type AgentError = { type: string; message: string; retryAfterMs?: number };

/** The limit on model calls when the options name none. */
export const DEFAULT_MAX_TURNS = 50;
const DEFAULT_MAX_TOKENS = 8192;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function failedMessage(type: string, message: string): AssistantMessage {
  return { role: "assistant", content: [], stop_reason: "error", incomplete: true, error: { type, message } };
}

/**
 * What of a message cut short by an abort can be sent back. A block cut before it carried anything is
 * dropped: an empty text block (the API rejects one), and thinking that never got its signature (or, from
 * other wires, the provider data in `meta`), which every adapter drops since it cannot be verified — kept, it
 * would leave an assistant message that goes out empty, and the API would reject every later request.
 */
function sendableContent(message: AssistantMessage): ContentBlock[] {
  return message.content.filter((block) => {
    if (block.type === "text") return block.text !== "";
    if (block.type === "thinking") return block.signature !== undefined || block.meta !== undefined;
    return true;
  });
}

function toolUses(message: Message): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

/** The text of the result given to a tool_use left unanswered when the run ends for `reason`. */
function notRunMessage(reason: AgentStopReason, error: AgentError | undefined): string {
  if (reason === "aborted") return INTERRUPTED_MESSAGE;
  if (reason === "refusal") return "Not run: the response ended with a refusal.";
  if (reason === "error" && error) return `Not run: the run stopped with an error: ${error.message}`;
  return `Not run: the run ended (${reason}).`;
}

/**
 * The tool-use loop. Sends the transcript, streams the answer (every provider event is re-yielded with its
 * `turn`, as it arrives), runs the tools it asks for, sends their results, and so on until the model stops.
 *
 * Contract: never throws for model or tool failures; the last event is always `agent-end`, whose payload is
 * also the generator's return value. Stops on end_turn, stop_sequence, refusal, max_tokens (outside a tool
 * call), error, abort, at `maxTurns`, and with `denied` once the user refused a call and stopped the turn (a deny
 * with `interrupt`: that turn's results are appended, no further request is sent); `pause_turn` continues without a new user message. Every request
 * passes `checkTranscript` first (if not, nothing is sent and the run ends with a loud `invalid_transcript`
 * error), and every transcript the run hands back passes it too: a tool_use the run leaves unanswered (abort,
 * refusal, error) gets an `is_error` result before `agent-end`. A response that failed (`stop_reason: error`)
 * is not appended, so running again with `result.messages` retries it; it is `lastMessage`. An aborted one keeps
 * what arrived, less the blocks no API takes back (see `sendableContent`).
 */
export async function* runAgent(options: RunAgentOptions): AsyncGenerator<AgentEvent, AgentResult> {
  const run = new AgentRun(options);
  try {
    return yield* run.loop();
  } catch (error) {
    // A bug in mitsu or in a hook (not a model or tool failure, which never throw): still end properly.
    return yield* run.end("error", {
      type: "internal_error",
      message: `mitsu internal error: ${errorMessage(error)}`,
    });
  }
}

/** A model turn's outcome: go on with the next turn, or the run's result. */
type Next = "next" | AgentResult;

/** One run of `runAgent`: its transcript and counters, and the steps of each turn. */
class AgentRun {
  private readonly agentPath: AgentPath;
  private readonly maxTurns: number;
  private readonly baseMaxTokens: number;
  private readonly signal: AbortSignal;
  private readonly tools: Tool<never>[];
  private readonly state: ToolState;
  private readonly system: TextBlock[];
  private readonly callOptions: CallOptions;
  private messages: Message[];
  /** Messages before this index have been given to `onMessage` (or were the caller's history). */
  private reported: number;
  private usage: Usage = emptyUsage();
  private lastMessage: AssistantMessage | undefined;
  private turn = 0;
  private lastInputTokens: number | undefined;
  /** Set when the history was replaced; given to the next `prepareRequest` as `newEpoch`. */
  private newEpoch: { reason: string } | undefined;
  private maxTokens: number;
  /** Whether this turn is a retry with a larger max_tokens of a call cut inside a tool call. */
  private retried = false;
  /** Set when the next request must come from a smaller history (the last one was, or would be, too long). */
  private overflow: PromptTooLong | undefined;
  /** The history was already made smaller for this request once: a second overflow ends the run. */
  private shrunk = false;

  constructor(private readonly options: RunAgentOptions) {
    this.agentPath = options.agentPath ?? [];
    this.maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
    this.baseMaxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.maxTokens = this.baseMaxTokens;
    this.signal = options.signal ?? new AbortController().signal;
    this.tools = options.tools ?? [];
    this.state = options.toolState ?? new ToolState();
    this.system =
      typeof options.system === "string"
        ? options.system === ""
          ? []
          : [{ type: "text", text: options.system }]
        : (options.system ?? []);
    this.callOptions = { signal: this.signal };
    if (options.liveInput !== undefined) this.callOptions.liveInput = options.liveInput;
    this.messages = [...options.messages];
    this.reported = this.messages.length - (this.messages.at(-1)?.role === "user" ? 1 : 0);
  }

  /** Gives the unreported messages to `onMessage`; returns the error if it threw. */
  private async report(): Promise<AgentError | undefined> {
    while (this.reported < this.messages.length) {
      const message = this.messages[this.reported] as Message;
      this.reported++;
      try {
        await this.options.onMessage?.(message);
      } catch (error) {
        return { type: "on_message_error", message: `onMessage failed: ${errorMessage(error)}` };
      }
    }
    return undefined;
  }

  /** Appends a user message of results the loop wrote itself (no tool ran), announcing each call. */
  private *answer(calls: ToolUseBlock[], results: ToolResultBlock[]): Generator<AgentEvent> {
    const { turn, agentPath } = this;
    for (const [i, block] of calls.entries()) {
      const result = results[i] as ToolResultBlock;
      yield { type: "tool-call-start", turn, agentPath, block };
      yield { type: "tool-call-end", turn, agentPath, block, result, durationMs: 0 };
    }
    const message: Message = { role: "user", content: results };
    this.messages.push(message);
    yield { type: "message", turn, agentPath, message };
  }

  async *end(reason: AgentStopReason, error?: AgentError): AsyncGenerator<AgentEvent, AgentResult> {
    const last = this.messages.at(-1);
    const pending = last?.role === "assistant" ? toolUses(last) : [];
    if (pending.length > 0) {
      const text = notRunMessage(reason, error);
      yield* this.answer(
        pending,
        pending.map((block) => errorResult(block.id, text)),
      );
    }
    const logError = await this.report();
    if (logError && reason !== "error") {
      reason = "error";
      error = logError;
    }
    const result: AgentResult = { reason, messages: this.messages, usage: this.usage };
    if (this.lastMessage) result.lastMessage = this.lastMessage;
    if (error) result.error = error;
    yield { type: "agent-end", ...result, agentPath: this.agentPath };
    return result;
  }

  /**
   * Asks `replaceHistory` whether to replace the transcript before this turn's request; swaps in a valid
   * replacement. Returns the run's result when the run has to end.
   */
  private async *replace(): AsyncGenerator<AgentEvent, AgentResult | undefined> {
    let replacement: Awaited<ReturnType<ReplaceHistory>>;
    try {
      const info: Parameters<ReplaceHistory>[1] = { turn: this.turn, usage: this.usage, signal: this.signal };
      if (this.overflow) info.overflow = this.overflow;
      if (this.lastInputTokens !== undefined) info.lastInputTokens = this.lastInputTokens;
      if (this.options.contextWindow !== undefined) info.contextWindow = this.options.contextWindow;
      replacement = await this.options.replaceHistory?.(this.messages, info);
    } catch (error) {
      return yield* this.end("error", {
        type: "replace_history_error",
        message: `replaceHistory failed: ${errorMessage(error)}`,
      });
    }
    if (!replacement) return undefined;
    const problems = checkTranscript(replacement.messages);
    if (replacement.messages.length === 0) problems.push("the replacement history is empty");
    if (problems.length > 0) {
      const message = `replaceHistory returned an invalid transcript: ${problems.join("; ")}`;
      return yield* this.end("error", { type: "invalid_transcript", message });
    }
    const before = this.messages.length;
    this.messages = [...replacement.messages];
    // A trailing user message is reported like a new prompt: after prepareRequest, as sent.
    this.reported = this.messages.length - (this.messages.at(-1)?.role === "user" ? 1 : 0);
    try {
      const replaced: HistoryReplacedInfo = {
        reason: replacement.reason,
        before,
        messages: this.messages.slice(0, this.reported),
      };
      if (replacement.summary !== undefined) replaced.summary = replacement.summary;
      if (replacement.tokensBefore !== undefined) replaced.tokensBefore = replacement.tokensBefore;
      if (replacement.tokensAfter !== undefined) replaced.tokensAfter = replacement.tokensAfter;
      if (replacement.usage) replaced.usage = replacement.usage;
      if (replacement.notice !== undefined) replaced.notice = replacement.notice;
      await this.options.onHistoryReplaced?.(replaced);
    } catch (error) {
      return yield* this.end("error", {
        type: "on_message_error",
        message: `onHistoryReplaced failed: ${errorMessage(error)}`,
      });
    }
    this.newEpoch = { reason: replacement.reason };
    if (replacement.usage) this.usage = addUsage(this.usage, replacement.usage);
    const event: Extract<AgentEvent, { type: "history-replaced" }> = {
      type: "history-replaced",
      turn: this.turn,
      agentPath: this.agentPath,
      reason: replacement.reason,
      before,
      after: this.messages.length,
    };
    if (replacement.tokensBefore !== undefined) event.tokensBefore = replacement.tokensBefore;
    if (replacement.tokensAfter !== undefined) event.tokensAfter = replacement.tokensAfter;
    if (replacement.usage) event.usage = replacement.usage;
    yield event;
    if (replacement.notice !== undefined) {
      yield {
        type: "warning",
        turn: this.turn,
        agentPath: this.agentPath,
        code: "history-trimmed",
        message: replacement.notice,
      };
    }
    return undefined;
  }

  /** One model call, streamed as it arrives; a stream that throws or ends without a message is a failed message. */
  private async *call(
    turnProvider: Provider,
    request: ModelRequest,
  ): AsyncGenerator<AgentEvent, { message: AssistantMessage } | { error: AgentError }> {
    if (this.options.journal) return yield* this.journaledCall(turnProvider, request);
    const { turn, agentPath } = this;
    let streamed: AssistantMessage | undefined;
    try {
      for await (const event of turnProvider.stream(request, this.callOptions)) {
        if (event.type === "message-end") streamed = event.message;
        yield { ...event, turn, agentPath };
      }
    } catch (error) {
      // The Provider contract says a stream never throws; if one does, it is an error like any other.
      streamed ??= failedMessage("provider_error", `The provider stream threw: ${errorMessage(error)}`);
    }
    return {
      message:
        streamed ?? failedMessage("provider_error", "The provider stream ended without a message-end event"),
    };
  }

  /**
   * One model call through the journal: the stream's events go through a queue (the journal holds the call
   * and resolves with the message, or with a recorded one without calling it).
   */
  private async *journaledCall(
    turnProvider: Provider,
    request: ModelRequest,
  ): AsyncGenerator<AgentEvent, { message: AssistantMessage } | { error: AgentError }> {
    const { turn, agentPath } = this;
    const queue = new AsyncQueue<AgentEvent>();
    const call = async (): Promise<AssistantMessage> => {
      let streamed: AssistantMessage | undefined;
      try {
        for await (const event of turnProvider.stream(request, this.callOptions)) {
          if (event.type === "message-end") streamed = event.message;
          queue.push({ ...event, turn, agentPath });
        }
      } catch (error) {
        streamed ??= failedMessage("provider_error", `The provider stream threw: ${errorMessage(error)}`);
      }
      return (
        streamed ?? failedMessage("provider_error", "The provider stream ended without a message-end event")
      );
    };
    const settled = (this.options.journal as Journal)
      .model({ turn, request, agentPath }, call)
      .then(
        (message) => ({ message }),
        (error: unknown) => ({
          error: { type: "journal_error", message: `The model journal failed: ${errorMessage(error)}` },
        }),
      )
      .finally(() => queue.close());
    yield* queue;
    return await settled;
  }

  async *loop(): AsyncGenerator<AgentEvent, AgentResult> {
    const names = new Set<string>();
    for (const tool of this.tools) {
      if (names.has(tool.name))
        return yield* this.end("error", {
          type: "invalid_tools",
          message: `Two tools are named ${tool.name}`,
        });
      names.add(tool.name);
    }
    const toolDefinitions = definitionsOf(this.tools);
    for (;;) {
      if (this.signal.aborted) return yield* this.end("aborted");
      if (this.turn >= this.maxTurns) return yield* this.end("max_turns");
      this.turn++;
      if (this.options.replaceHistory) {
        const replaced = yield* this.replace();
        this.overflow = undefined;
        if (replaced) return replaced;
      }
      const choice = this.options.selectModel?.(this.state);
      const turnProvider = choice?.provider ?? this.options.provider;
      const prepared = yield* this.prepare({
        model: choice?.model ?? this.options.model,
        system: this.system,
        tools: toolDefinitions,
        messages: [...this.messages],
        maxTokens: this.maxTokens,
      });
      if ("again" in prepared) continue;
      if (!("request" in prepared)) return prepared;
      const { request } = prepared;
      yield { type: "turn-start", turn: this.turn, agentPath: this.agentPath, request };
      const called = yield* this.call(turnProvider, request);
      if ("error" in called) return yield* this.end("error", called.error);
      const next = yield* this.take(called.message);
      if (next !== "next") return next;
    }
  }

  /**
   * The turn's request through `prepareRequest` and the transcript check; only a request that passes becomes the
   * history (append-only, as sent), and its new messages are logged before it is sent.
   */
  private async *prepare(
    base: ModelRequest,
  ): AsyncGenerator<AgentEvent, { request: ModelRequest } | { again: true } | AgentResult> {
    const { options, turn, agentPath } = this;
    let request = base;
    if (options.temperature !== undefined) request.temperature = options.temperature;
    if (options.thinkingBudget !== undefined) request.thinkingBudget = options.thinkingBudget;
    if (options.providerOptions !== undefined) request.providerOptions = options.providerOptions;
    if (options.prepareRequest) {
      const warnings: AgentEvent[] = [];
      const info: PrepareRequestInfo = {
        turn,
        warn: (code, message) => warnings.push({ type: "warning", turn, agentPath, code, message }),
      };
      if (this.newEpoch) info.newEpoch = this.newEpoch;
      try {
        request = await options.prepareRequest(request, info);
      } catch (error) {
        return yield* this.end("error", {
          type: "prepare_request_error",
          message: `prepareRequest failed: ${errorMessage(error)}`,
        });
      }
      yield* warnings;
      if (request.messages.length < this.messages.length) {
        const message =
          "mitsu bug: prepareRequest removed messages from the transcript (history is append-only)";
        return yield* this.end("error", { type: "invalid_transcript", message });
      }
    }
    const problems = checkTranscript(request.messages);
    if (problems.length > 0) {
      const message = `mitsu bug: refusing to send an invalid transcript: ${problems.join("; ")}`;
      return yield* this.end("error", { type: "invalid_transcript", message });
    }
    const window = options.contextWindow;
    if (options.requestTokens && window !== undefined) {
      const size = options.requestTokens(request);
      // The answer's room counts (the APIs refuse input + max_tokens over the window), at most half the window.
      if (size + Math.min(request.maxTokens, Math.floor(window / 2)) > window) {
        if (options.replaceHistory && !this.shrunk) {
          // Not sent: the history is made smaller first, and this turn is asked again.
          this.shrunk = true;
          this.overflow = {};
          this.turn--;
          return { again: true };
        }
        const message = `The request (about ${size} tokens, plus ${request.maxTokens} for the answer) would not fit the model's ${window}-token context window, and the history could not be made smaller; nothing was sent.`;
        return yield* this.end("error", { type: "context_overflow", message });
      }
    }
    // Only now does the prepared transcript become the history: one that fails the check is never kept.
    this.messages = [...request.messages];
    this.newEpoch = undefined;
    const logError = await this.report();
    if (logError) return yield* this.end("error", logError);
    if (this.signal.aborted) return yield* this.end("aborted");
    return { request };
  }

  /** The model's answer: counted, then ended on, retried, or kept and its tool calls run. */
  private async *take(message: AssistantMessage): AsyncGenerator<AgentEvent, Next> {
    const { turn, agentPath, signal } = this;
    this.lastMessage = message;
    if (message.usage) {
      this.usage = addUsage(this.usage, message.usage);
      const u = message.usage;
      this.lastInputTokens =
        u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    }
    const stop = message.stop_reason;
    if (stop === "error") {
      const failure = message.error ?? { type: "provider_error", message: "The model call failed" };
      const tooLong = promptTooLong(failure);
      if (tooLong && this.options.replaceHistory && !this.shrunk && !signal.aborted) {
        // The provider counted more than the estimate did: compact (or trim) and send once more.
        yield {
          type: "warning",
          turn,
          agentPath,
          code: "prompt-too-long",
          message: `The provider refused the request as too long for the context window${tooLong.tokens ? ` (${tooLong.tokens} tokens)` : ""}; compacting and retrying once.`,
        };
        this.shrunk = true;
        this.overflow = tooLong;
        return "next";
      }
      return yield* this.end("error", {
        type: failure.type,
        message: failure.message,
        ...(message.error?.retryAfterMs !== undefined ? { retryAfterMs: message.error.retryAfterMs } : {}),
      });
    }
    this.shrunk = false;
    if (stop === "aborted" || signal.aborted) {
      const content = sendableContent(message);
      if (content.length > 0) {
        const kept: AssistantMessage = { ...message, content };
        this.messages.push(kept);
        yield { type: "message", turn, agentPath, message: kept };
      }
      return yield* this.end("aborted");
    }
    if (cutToolCall(message)) return yield* this.cut(message);
    this.retried = false;
    this.maxTokens = this.baseMaxTokens;
    if (message.content.length === 0) {
      // The API rejects an empty assistant message anywhere but at the end, so it is not kept.
      yield {
        type: "warning",
        turn,
        agentPath,
        code: "empty_response",
        message: "The model answered with no content.",
      };
      if (stop === "pause_turn") return "next";
      return yield* this.end(
        stop === "max_tokens" || stop === "refusal" || stop === "stop_sequence" ? stop : "end_turn",
      );
    }
    this.messages.push(message);
    yield { type: "message", turn, agentPath, message };
    const appendError = await this.report();
    if (appendError) return yield* this.end("error", appendError);
    const calls = toolUses(message);
    if (calls.length > 0 && stop !== "refusal") return yield* this.runCalls(calls);
    if (stop === "pause_turn") return "next";
    if (stop === "refusal" || stop === "max_tokens" || stop === "stop_sequence") return yield* this.end(stop);
    return yield* this.end("end_turn");
  }

  /**
   * An answer cut at max_tokens inside a tool call: the turn again with a larger max_tokens (once, by policy), or
   * the calls answered with errors (a tool never runs on input it did not fully receive).
   */
  private async *cut(message: AssistantMessage): AsyncGenerator<AgentEvent, Next> {
    const { turn, agentPath, options } = this;
    const cut = cutToolCall(message) as ToolUseBlock;
    const retryCut = options.maxTokensPolicy?.retry ?? true;
    const maxTokensCap = options.maxTokensPolicy?.maxTokensCap ?? DEFAULT_MAX_TOKENS_CAP;
    if (retryCut && !this.retried && this.maxTokens < maxTokensCap && turn < this.maxTurns) {
      const next = Math.min(this.maxTokens * 2, maxTokensCap);
      yield {
        type: "warning",
        turn,
        agentPath,
        code: "max_tokens_retry",
        message: `Output was cut at max_tokens (${this.maxTokens}) inside a ${cut.name} call; retrying the turn with max_tokens ${next}.`,
      };
      this.retried = true;
      this.maxTokens = next;
      return "next";
    }
    this.messages.push(message);
    yield { type: "message", turn, agentPath, message };
    const cutError = await this.report();
    if (cutError) return yield* this.end("error", cutError);
    const calls = toolUses(message);
    const maxTokens = this.maxTokens;
    yield* this.answer(
      calls,
      calls.map((block) =>
        errorResult(
          block.id,
          block.input_status === "incomplete"
            ? cutCallMessage(block, maxTokens)
            : notRunInCutMessage(maxTokens),
        ),
      ),
    );
    this.retried = false;
    this.maxTokens = this.baseMaxTokens;
    return "next";
  }

  /** Runs the answer's tool calls and appends their results. */
  private async *runCalls(calls: ToolUseBlock[]): AsyncGenerator<AgentEvent, Next> {
    const { turn, agentPath, signal, options } = this;
    let stopped = false;
    const results = yield* runTools({
      calls,
      tools: this.tools,
      turn,
      signal,
      state: this.state,
      agentPath,
      ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
      ...(options.journal ? { journal: options.journal } : {}),
      ...(options.spawn ? { spawn: options.spawn } : {}),
      ...(options.onToolStart ? { onToolStart: options.onToolStart } : {}),
      ...(options.onToolResult ? { onToolResult: options.onToolResult } : {}),
      onStopped: () => {
        stopped = true;
      },
    });
    const resultMessage: Message = { role: "user", content: results };
    this.messages.push(resultMessage);
    yield { type: "message", turn, agentPath, message: resultMessage };
    if (signal.aborted) return yield* this.end("aborted");
    // The user refused a call and will say what to do instead: the results are kept, the model is not called.
    if (stopped) return yield* this.end("denied");
    return "next";
  }
}

/** Runs `runAgent` to its end, dropping the events; resolves with the `agent-end` payload. */
export async function runAgentToEnd(options: RunAgentOptions): Promise<AgentResult> {
  const run = runAgent(options);
  for (;;) {
    const next = await run.next();
    if (next.done) return next.value;
  }
}
