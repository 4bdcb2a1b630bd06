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
import { type Tool, toToolDefinition } from "./tool.js";
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
   * would pass the window
   * makes the loop ask `replaceHistory` again (with `info.overflow`), once; if it still would not fit, the run
   * ends with a `context_overflow` error and nothing is sent.
   */
  requestTokens?: (request: ModelRequest) => number;
}

type AgentError = { type: string; message: string };

const DEFAULT_MAX_TURNS = 50;
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
  const { provider, model, canUseTool, onMessage, prepareRequest, replaceHistory, journal } = options;
  const agentPath = options.agentPath ?? [];
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const baseMaxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const retryCut = options.maxTokensPolicy?.retry ?? true;
  const maxTokensCap = options.maxTokensPolicy?.maxTokensCap ?? DEFAULT_MAX_TOKENS_CAP;
  const signal = options.signal ?? new AbortController().signal;
  const tools = options.tools ?? [];
  const state = options.toolState ?? new ToolState();
  const system: TextBlock[] =
    typeof options.system === "string"
      ? options.system === ""
        ? []
        : [{ type: "text", text: options.system }]
      : (options.system ?? []);
  const callOptions: CallOptions = { signal };
  if (options.liveInput !== undefined) callOptions.liveInput = options.liveInput;

  let messages: Message[] = [...options.messages];
  /** Messages before this index have been given to `onMessage` (or were the caller's history). */
  let reported = messages.length - (messages.at(-1)?.role === "user" ? 1 : 0);
  let usage: Usage = emptyUsage();
  let lastMessage: AssistantMessage | undefined;
  let turn = 0;
  let lastInputTokens: number | undefined;
  /** Set when the history was replaced; given to the next `prepareRequest` as `newEpoch`. */
  let newEpoch: { reason: string } | undefined;

  /** Gives the unreported messages to `onMessage`; returns the error if it threw. */
  const report = async (): Promise<AgentError | undefined> => {
    while (reported < messages.length) {
      const message = messages[reported] as Message;
      reported++;
      try {
        await onMessage?.(message);
      } catch (error) {
        return { type: "on_message_error", message: `onMessage failed: ${errorMessage(error)}` };
      }
    }
    return undefined;
  };

  /** Appends a user message of results the loop wrote itself (no tool ran), announcing each call. */
  function* answer(calls: ToolUseBlock[], results: ToolResultBlock[]): Generator<AgentEvent> {
    for (const [i, block] of calls.entries()) {
      const result = results[i] as ToolResultBlock;
      yield { type: "tool-call-start", turn, agentPath, block };
      yield { type: "tool-call-end", turn, agentPath, block, result, durationMs: 0 };
    }
    const message: Message = { role: "user", content: results };
    messages.push(message);
    yield { type: "message", turn, agentPath, message };
  }

  async function* end(reason: AgentStopReason, error?: AgentError): AsyncGenerator<AgentEvent, AgentResult> {
    const last = messages.at(-1);
    const pending = last?.role === "assistant" ? toolUses(last) : [];
    if (pending.length > 0) {
      const text = notRunMessage(reason, error);
      yield* answer(
        pending,
        pending.map((block) => errorResult(block.id, text)),
      );
    }
    const logError = await report();
    if (logError && reason !== "error") {
      reason = "error";
      error = logError;
    }
    const result: AgentResult = { reason, messages, usage };
    if (lastMessage) result.lastMessage = lastMessage;
    if (error) result.error = error;
    yield { type: "agent-end", ...result, agentPath };
    return result;
  }

  /**
   * Asks `replaceHistory` whether to replace the transcript before this turn's request; swaps in a valid
   * replacement. Returns the run's result when the run has to end.
   */
  async function* replace(overflow?: PromptTooLong): AsyncGenerator<AgentEvent, AgentResult | undefined> {
    let replacement: Awaited<ReturnType<ReplaceHistory>>;
    try {
      const info: Parameters<ReplaceHistory>[1] = { turn, usage, signal };
      if (overflow) info.overflow = overflow;
      if (lastInputTokens !== undefined) info.lastInputTokens = lastInputTokens;
      if (options.contextWindow !== undefined) info.contextWindow = options.contextWindow;
      replacement = await replaceHistory?.(messages, info);
    } catch (error) {
      return yield* end("error", {
        type: "replace_history_error",
        message: `replaceHistory failed: ${errorMessage(error)}`,
      });
    }
    if (!replacement) return undefined;
    const problems = checkTranscript(replacement.messages);
    if (replacement.messages.length === 0) problems.push("the replacement history is empty");
    if (problems.length > 0) {
      const message = `replaceHistory returned an invalid transcript: ${problems.join("; ")}`;
      return yield* end("error", { type: "invalid_transcript", message });
    }
    const before = messages.length;
    messages = [...replacement.messages];
    // A trailing user message is reported like a new prompt: after prepareRequest, as sent.
    reported = messages.length - (messages.at(-1)?.role === "user" ? 1 : 0);
    try {
      const replaced: HistoryReplacedInfo = {
        reason: replacement.reason,
        before,
        messages: messages.slice(0, reported),
      };
      if (replacement.summary !== undefined) replaced.summary = replacement.summary;
      if (replacement.tokensBefore !== undefined) replaced.tokensBefore = replacement.tokensBefore;
      if (replacement.tokensAfter !== undefined) replaced.tokensAfter = replacement.tokensAfter;
      if (replacement.usage) replaced.usage = replacement.usage;
      if (replacement.notice !== undefined) replaced.notice = replacement.notice;
      await options.onHistoryReplaced?.(replaced);
    } catch (error) {
      return yield* end("error", {
        type: "on_message_error",
        message: `onHistoryReplaced failed: ${errorMessage(error)}`,
      });
    }
    newEpoch = { reason: replacement.reason };
    if (replacement.usage) usage = addUsage(usage, replacement.usage);
    const event: Extract<AgentEvent, { type: "history-replaced" }> = {
      type: "history-replaced",
      turn,
      agentPath,
      reason: replacement.reason,
      before,
      after: messages.length,
    };
    if (replacement.tokensBefore !== undefined) event.tokensBefore = replacement.tokensBefore;
    if (replacement.tokensAfter !== undefined) event.tokensAfter = replacement.tokensAfter;
    if (replacement.usage) event.usage = replacement.usage;
    yield event;
    if (replacement.notice !== undefined)
      yield { type: "warning", turn, agentPath, code: "history-trimmed", message: replacement.notice };
    return undefined;
  }

  /**
   * One model call through the journal: the stream's events go through a queue (the journal holds the call
   * and resolves with the message, or with a recorded one without calling it).
   */
  async function* journaledCall(
    turnProvider: Provider,
    request: ModelRequest,
  ): AsyncGenerator<AgentEvent, { message: AssistantMessage } | { error: AgentError }> {
    const queue = new AsyncQueue<AgentEvent>();
    const call = async (): Promise<AssistantMessage> => {
      let streamed: AssistantMessage | undefined;
      try {
        for await (const event of turnProvider.stream(request, callOptions)) {
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
    const settled = (journal as Journal)
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

  async function* loop(): AsyncGenerator<AgentEvent, AgentResult> {
    const names = new Set<string>();
    for (const tool of tools) {
      if (names.has(tool.name))
        return yield* end("error", { type: "invalid_tools", message: `Two tools are named ${tool.name}` });
      names.add(tool.name);
    }
    const toolDefinitions = tools.map(toToolDefinition);
    let maxTokens = baseMaxTokens;
    let retried = false;
    /** Set when the next request must come from a smaller history (the last one was, or would be, too long). */
    let overflow: PromptTooLong | undefined;
    /** The history was already made smaller for this request once: a second overflow ends the run. */
    let shrunk = false;

    for (;;) {
      if (signal.aborted) return yield* end("aborted");
      if (turn >= maxTurns) return yield* end("max_turns");
      turn++;

      if (replaceHistory) {
        const replaced = yield* replace(overflow);
        overflow = undefined;
        if (replaced) return replaced;
      }
      const choice = options.selectModel?.(state);
      const turnProvider = choice?.provider ?? provider;
      let request: ModelRequest = {
        model: choice?.model ?? model,
        system,
        tools: toolDefinitions,
        messages: [...messages],
        maxTokens,
      };
      if (options.temperature !== undefined) request.temperature = options.temperature;
      if (options.thinkingBudget !== undefined) request.thinkingBudget = options.thinkingBudget;
      if (options.providerOptions !== undefined) request.providerOptions = options.providerOptions;
      if (prepareRequest) {
        const warnings: AgentEvent[] = [];
        const info: PrepareRequestInfo = {
          turn,
          warn: (code, message) => warnings.push({ type: "warning", turn, agentPath, code, message }),
        };
        if (newEpoch) info.newEpoch = newEpoch;
        try {
          request = await prepareRequest(request, info);
        } catch (error) {
          return yield* end("error", {
            type: "prepare_request_error",
            message: `prepareRequest failed: ${errorMessage(error)}`,
          });
        }
        yield* warnings;
        if (request.messages.length < messages.length) {
          const message =
            "mitsu bug: prepareRequest removed messages from the transcript (history is append-only)";
          return yield* end("error", { type: "invalid_transcript", message });
        }
      }
      const problems = checkTranscript(request.messages);
      if (problems.length > 0) {
        const message = `mitsu bug: refusing to send an invalid transcript: ${problems.join("; ")}`;
        return yield* end("error", { type: "invalid_transcript", message });
      }
      const window = options.contextWindow;
      if (options.requestTokens && window !== undefined) {
        const size = options.requestTokens(request);
        // The answer's room counts (the APIs refuse input + max_tokens over the window), at most half the window.
        if (size + Math.min(request.maxTokens, Math.floor(window / 2)) > window) {
          if (replaceHistory && !shrunk) {
            // Not sent: the history is made smaller first, and this turn is asked again.
            shrunk = true;
            overflow = {};
            turn--;
            continue;
          }
          const message = `The request (about ${size} tokens, plus ${request.maxTokens} for the answer) would not fit the model's ${window}-token context window, and the history could not be made smaller; nothing was sent.`;
          return yield* end("error", { type: "context_overflow", message });
        }
      }
      // Only now does the prepared transcript become the history: one that fails the check is never kept.
      messages = [...request.messages];
      newEpoch = undefined;
      const logError = await report();
      if (logError) return yield* end("error", logError);
      if (signal.aborted) return yield* end("aborted");

      yield { type: "turn-start", turn, agentPath, request };
      let message: AssistantMessage;
      if (journal) {
        const journaled = yield* journaledCall(turnProvider, request);
        if ("error" in journaled) return yield* end("error", journaled.error);
        message = journaled.message;
      } else {
        let streamed: AssistantMessage | undefined;
        try {
          for await (const event of turnProvider.stream(request, callOptions)) {
            if (event.type === "message-end") streamed = event.message;
            yield { ...event, turn, agentPath };
          }
        } catch (error) {
          // The Provider contract says a stream never throws; if one does, it is an error like any other.
          streamed ??= failedMessage("provider_error", `The provider stream threw: ${errorMessage(error)}`);
        }
        message =
          streamed ??
          failedMessage("provider_error", "The provider stream ended without a message-end event");
      }
      lastMessage = message;
      if (message.usage) {
        usage = addUsage(usage, message.usage);
        const u = message.usage;
        lastInputTokens =
          u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      }
      const stop = message.stop_reason;

      if (stop === "error") {
        const failure = message.error ?? { type: "provider_error", message: "The model call failed" };
        const tooLong = promptTooLong(failure);
        if (tooLong && replaceHistory && !shrunk && !signal.aborted) {
          // The provider counted more than the estimate did: compact (or trim) and send once more.
          yield {
            type: "warning",
            turn,
            agentPath,
            code: "prompt-too-long",
            message: `The provider refused the request as too long for the context window${tooLong.tokens ? ` (${tooLong.tokens} tokens)` : ""}; compacting and retrying once.`,
          };
          shrunk = true;
          overflow = tooLong;
          continue;
        }
        return yield* end("error", { type: failure.type, message: failure.message });
      }
      shrunk = false;
      if (stop === "aborted" || signal.aborted) {
        const content = sendableContent(message);
        if (content.length > 0) {
          const kept: AssistantMessage = { ...message, content };
          messages.push(kept);
          yield { type: "message", turn, agentPath, message: kept };
        }
        return yield* end("aborted");
      }

      const cut = cutToolCall(message);
      if (cut) {
        if (retryCut && !retried && maxTokens < maxTokensCap && turn < maxTurns) {
          const next = Math.min(maxTokens * 2, maxTokensCap);
          yield {
            type: "warning",
            turn,
            agentPath,
            code: "max_tokens_retry",
            message: `Output was cut at max_tokens (${maxTokens}) inside a ${cut.name} call; retrying the turn with max_tokens ${next}.`,
          };
          retried = true;
          maxTokens = next;
          continue;
        }
        messages.push(message);
        yield { type: "message", turn, agentPath, message };
        const cutError = await report();
        if (cutError) return yield* end("error", cutError);
        const calls = toolUses(message);
        yield* answer(
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
        retried = false;
        maxTokens = baseMaxTokens;
        continue;
      }
      retried = false;
      maxTokens = baseMaxTokens;

      if (message.content.length === 0) {
        // The API rejects an empty assistant message anywhere but at the end, so it is not kept.
        yield {
          type: "warning",
          turn,
          agentPath,
          code: "empty_response",
          message: "The model answered with no content.",
        };
        if (stop === "pause_turn") continue;
        return yield* end(
          stop === "max_tokens" || stop === "refusal" || stop === "stop_sequence" ? stop : "end_turn",
        );
      }
      messages.push(message);
      yield { type: "message", turn, agentPath, message };
      const appendError = await report();
      if (appendError) return yield* end("error", appendError);

      const calls = toolUses(message);
      if (calls.length > 0 && stop !== "refusal") {
        let stopped = false;
        const results = yield* runTools({
          calls,
          tools,
          turn,
          signal,
          state,
          agentPath,
          ...(canUseTool ? { canUseTool } : {}),
          ...(journal ? { journal } : {}),
          ...(options.spawn ? { spawn: options.spawn } : {}),
          ...(options.onToolStart ? { onToolStart: options.onToolStart } : {}),
          ...(options.onToolResult ? { onToolResult: options.onToolResult } : {}),
          onStopped: () => {
            stopped = true;
          },
        });
        const resultMessage: Message = { role: "user", content: results };
        messages.push(resultMessage);
        yield { type: "message", turn, agentPath, message: resultMessage };
        if (signal.aborted) return yield* end("aborted");
        // The user refused a call and will say what to do instead: the results are kept, the model is not called.
        if (stopped) return yield* end("denied");
        continue;
      }
      if (stop === "pause_turn") continue;
      if (stop === "refusal" || stop === "max_tokens" || stop === "stop_sequence") return yield* end(stop);
      return yield* end("end_turn");
    }
  }

  try {
    return yield* loop();
  } catch (error) {
    // A bug in mitsu or in a hook (not a model or tool failure, which never throw): still end properly.
    return yield* end("error", {
      type: "internal_error",
      message: `mitsu internal error: ${errorMessage(error)}`,
    });
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
