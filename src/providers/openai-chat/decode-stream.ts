import type { StopReason, Usage } from "../../messages/index.js";
import type { SseEvent } from "../../stream/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { DecodeContext } from "../decode/decode-context.js";
import { cutOutcome, decodeSseAttempt, type Outcome, parsePayload } from "../decode/decode-sse-attempt.js";
import { MessageAssembler } from "../decode/message-assembler.js";
import { newToolUseId } from "../decode/new-id.js";
import { parseOpenAIStreamError } from "../http/parse-openai-error.js";
import type { StreamAttemptResult } from "../http/stream-with-retries.js";
import { isPlainObject } from "../is-plain-object.js";

export interface OpenAIChatDecodeOptions extends DecodeContext {
  /** A delta field that carries reasoning text, read before `reasoning_content` and `reasoning`. */
  reasoningField?: string | undefined;
  /** Ids for tool calls that arrive without one (some compatible servers); default random `call_…`. */
  newId?: (() => string) | undefined;
}

/** Decodes one Chat Completions stream (see `OpenAIChatStreamHandler`) for `streamWithRetries`. */
export function decodeOpenAIChatStream(
  response: Response,
  options: OpenAIChatDecodeOptions = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const asm = new MessageAssembler({ live: options.live, usedToolIds: options.usedToolIds });
  return decodeSseAttempt(response, asm, new OpenAIChatStreamHandler(asm, options), options);
}

const FINISH_REASONS: Record<string, StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

const TEXT = "text";
const REASONING = "reasoning";
const REASONING_FIELDS = ["reasoning_content", "reasoning"];

/**
 * Chat Completions chunks into neutral events. Content deltas make a text block; `reasoning_content` /
 * `reasoning` deltas (DeepSeek, vLLM, OpenRouter, Ollama) a thinking block; each `tool_calls[index]` a tool call
 * whose id and name come in its first fragment and whose argument fragments go through a JSON accumulator, so
 * calls may interleave by index; a fragment with a new id at an index already in use starts a new call. A `refusal` delta is text, and the message stops with `refusal`.
 *
 * The message ends at `[DONE]` (or at the end of the body once a `finish_reason` came, for servers that omit
 * `[DONE]`); the usage chunk after `finish_reason` is read first. Unknown fields (`obfuscation`) are ignored.
 * An `{"error":…}` payload in the stream ends the message as an error.
 */
export class OpenAIChatStreamHandler {
  private finishReason: string | undefined;
  private refused = false;
  /** The id the server gave the call open under each key (none when mitsu made one). */
  private readonly wireIds = new Map<string, string>();
  private readonly reasoningFields: string[];
  private readonly newId: () => string;

  constructor(
    private readonly asm: MessageAssembler,
    options: OpenAIChatDecodeOptions = {},
  ) {
    this.reasoningFields = options.reasoningField
      ? [options.reasoningField, ...REASONING_FIELDS.filter((f) => f !== options.reasoningField)]
      : REASONING_FIELDS;
    this.newId = options.newId ?? (() => newToolUseId());
  }

  frame(event: SseEvent): Outcome | undefined {
    const data = event.data.trim();
    if (data === "[DONE]") return this.outcome();
    if (data === "") return undefined;
    const chunk = parsePayload(data);
    if (!isPlainObject(chunk)) return undefined;
    if (chunk.error !== undefined && chunk.error !== null) {
      return { stopReason: "error", error: parseOpenAIStreamError(chunk), incomplete: true };
    }
    this.asm.start(str(chunk.model), str(chunk.id));
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    // n = 1: only the first choice is read.
    const choice = choices.find((c) => isPlainObject(c) && (c.index ?? 0) === 0);
    if (isPlainObject(choice)) this.choice(choice);
    if (isPlainObject(chunk.usage)) this.asm.setUsage(usage(chunk.usage));
    return undefined;
  }

  end(): Outcome {
    // Some compatible servers close the body without `[DONE]`: after a finish_reason the message is whole.
    return this.finishReason === undefined ? cutOutcome("OpenAI") : this.outcome();
  }

  private choice(choice: Record<string, unknown>): void {
    const delta = isPlainObject(choice.delta) ? choice.delta : {};
    for (const field of this.reasoningFields) {
      const reasoning = delta[field];
      if (typeof reasoning === "string" && reasoning !== "") {
        this.asm.close(TEXT);
        this.asm.thinking(REASONING, reasoning);
        break;
      }
    }
    if (typeof delta.content === "string" && delta.content !== "") this.text(delta.content);
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.refused = true;
      this.text(delta.refusal);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) if (isPlainObject(call)) this.toolCall(call);
    }
    if (typeof choice.finish_reason === "string") {
      this.finishReason = choice.finish_reason;
      // A cut (length) leaves the calls' input as received: incomplete, even when empty.
      this.asm.closeAll(undefined, { cut: choice.finish_reason === "length" });
    }
  }

  private text(delta: string): void {
    this.asm.close(REASONING);
    this.asm.text(TEXT, delta);
  }

  private toolCall(call: Record<string, unknown>): void {
    const key = `tool:${typeof call.index === "number" ? call.index : 0}`;
    const fn = isPlainObject(call.function) ? call.function : {};
    const id = str(call.id);
    // Ollama gives every call of a turn index 0 (older builds no index): a new id at an open index is a new call.
    // Servers that repeat the id on every fragment (vLLM) repeat the same one.
    const openId = this.wireIds.get(key);
    if (id !== undefined && openId !== undefined && id !== openId && this.asm.isOpen(key))
      this.asm.close(key);
    if (!this.asm.isOpen(key)) {
      this.asm.close(REASONING);
      this.asm.close(TEXT);
      this.asm.toolStart(key, id ?? this.newId(), str(fn.name) ?? "");
      if (id === undefined) this.wireIds.delete(key);
      else this.wireIds.set(key, id);
    }
    if (typeof fn.arguments === "string") this.asm.toolDelta(key, fn.arguments);
  }

  private outcome(): Outcome {
    const reason = this.finishReason;
    if (reason === undefined) return cutOutcome("OpenAI");
    let stopReason = FINISH_REASONS[reason] ?? "end_turn";
    // Several compatible servers say "stop" after tool calls.
    if (stopReason === "end_turn" && this.asm.toolUses > 0) stopReason = "tool_use";
    if (stopReason === "end_turn" && this.refused) stopReason = "refusal";
    return { stopReason };
  }
}

/** Prompt tokens include the cached ones: mitsu counts them apart, as Anthropic does. */
function usage(raw: Record<string, unknown>): Usage {
  const details = isPlainObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const prompt = num(raw.prompt_tokens);
  const cached = num(details.cached_tokens);
  return {
    input_tokens: Math.max(0, prompt - cached),
    output_tokens: num(raw.completion_tokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
