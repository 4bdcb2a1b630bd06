import type { StopReason, Usage } from "../../messages/index.js";
import { emptyUsage } from "../../messages/index.js";
import type { SseEvent } from "../../stream/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { DecodeContext } from "../decode/decode-context.js";
import { cutOutcome, decodeSseAttempt, type Outcome, parsePayload } from "../decode/decode-sse-attempt.js";
import { MessageAssembler } from "../decode/message-assembler.js";
import { ProviderError } from "../http/provider-error.js";
import type { StreamAttemptResult } from "../http/stream-with-retries.js";
import { isPlainObject } from "../is-plain-object.js";
import { parseAnthropicStreamError } from "./parse-anthropic-error.js";

/** Decodes one Messages API stream (see `AnthropicStreamHandler`) for `streamWithRetries`. */
export function decodeAnthropicStream(
  response: Response,
  context: DecodeContext = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const asm = new MessageAssembler({ live: context.live, usedToolIds: context.usedToolIds });
  return decodeSseAttempt(response, asm, new AnthropicStreamHandler(asm), context);
}

const KNOWN_STOP_REASONS = new Set<string>([
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "pause_turn",
  "refusal",
]);

type Json = Record<string, unknown>;

/**
 * Messages API events into neutral events, each content block under its wire `index`:
 * - `text` blocks (with `citations_delta`s kept in `meta.citations`), `thinking` blocks (with `signature_delta`s),
 *   `tool_use` blocks (`input_json_delta`s through the accumulator; the start's `input: {}` is the placeholder for
 *   a call that streams no input), `redacted_thinking` whole;
 * - any other block type (server tools, compaction, types added later) kept verbatim as an unknown block, its
 *   deltas merged in (`UnknownBlockDraft`), delivered as one `block` event when it stops;
 * - `message_start` / `message_delta` usage: cumulative counters, each one present replacing the earlier value;
 * - `message_stop` ends the message (a body that ends after `message_delta`'s stop reason is complete too);
 *   an `error` event ends it as an error; `ping` and unknown event types are ignored.
 * A delta for a block never started, a repeated start, a payload that is not a JSON object: a malformed stream.
 */
export class AnthropicStreamHandler {
  /** Wire indexes started so far (a delta for any other index is malformed). */
  private readonly started = new Set<number>();
  private usage: Usage = emptyUsage();
  private stopReason: string | undefined;

  constructor(private readonly asm: MessageAssembler) {}

  frame(event: SseEvent): Outcome | undefined {
    const payload = parsePayload(event.data);
    if (!isPlainObject(payload)) throw malformed(`not an object: ${event.data.slice(0, 200)}`);
    const type = typeof payload.type === "string" ? payload.type : event.event;
    switch (type) {
      case "message_start":
        this.messageStart(payload);
        return undefined;
      case "content_block_start":
        this.blockStart(payload);
        return undefined;
      case "content_block_delta":
        this.blockDelta(payload, event.data);
        return undefined;
      case "content_block_stop":
        // A stop for a block never started carries nothing to lose: ignored.
        if (typeof payload.index === "number") this.asm.close(key(payload.index));
        return undefined;
      case "message_delta":
        this.messageDelta(payload);
        return undefined;
      case "message_stop":
        return this.outcome();
      case "error":
        return { stopReason: "error", error: parseAnthropicStreamError(payload), incomplete: true };
      default:
        // `ping`, and event types added after this version: nothing to assemble.
        return undefined;
    }
  }

  end(): Outcome {
    // The stop reason came: only `message_stop` is missing, and it carries nothing.
    return this.stopReason === undefined ? cutOutcome("Anthropic") : this.outcome();
  }

  private messageStart(payload: Json): void {
    const message = isPlainObject(payload.message) ? payload.message : {};
    this.asm.start(str(message.model), str(message.id));
    if (isPlainObject(message.usage)) this.overwriteUsage(message.usage);
    this.asm.setUsage({ ...this.usage });
  }

  private blockStart(payload: Json): void {
    const index = payload.index;
    const start = payload.content_block;
    if (typeof index !== "number" || !isPlainObject(start)) {
      throw malformed(`malformed content_block_start: ${JSON.stringify(payload).slice(0, 200)}`);
    }
    if (this.started.has(index)) throw malformed(`content_block_start repeated for index ${index}`);
    this.started.add(index);
    const k = key(index);
    switch (start.type) {
      case "text":
        this.asm.openText(k);
        if (typeof start.text === "string") this.asm.text(k, start.text);
        break;
      case "thinking":
        this.asm.openThinking(k);
        if (typeof start.thinking === "string") this.asm.thinking(k, start.thinking);
        if (typeof start.signature === "string") this.asm.signature(k, start.signature);
        break;
      case "tool_use":
        this.asm.toolStart(
          k,
          str(start.id) ?? "",
          typeof start.name === "string" ? start.name : "",
          undefined,
          start.input,
        );
        break;
      case "redacted_thinking":
        this.asm.block({ type: "redacted_thinking", data: typeof start.data === "string" ? start.data : "" });
        break;
      default:
        this.asm.openUnknown(k, "anthropic", start);
    }
  }

  private blockDelta(payload: Json, data: string): void {
    const index = payload.index;
    if (typeof index !== "number" || !this.started.has(index)) {
      throw malformed(`content_block_delta for a block that was not started: ${data.slice(0, 200)}`);
    }
    const delta = payload.delta;
    if (!isPlainObject(delta)) return;
    const k = key(index);
    // Unknown delta types are merged into unknown blocks (`unknownDelta` ignores other kinds) and ignored elsewhere.
    switch (delta.type) {
      case "text_delta":
        if (typeof delta.text === "string") this.asm.text(k, delta.text);
        return;
      case "citations_delta":
        if (delta.citation !== undefined) this.asm.citation(k, delta.citation);
        return;
      case "thinking_delta":
        if (typeof delta.thinking === "string") this.asm.thinking(k, delta.thinking);
        return;
      case "signature_delta":
        if (typeof delta.signature === "string") this.asm.signature(k, delta.signature);
        return;
      case "input_json_delta":
        if (typeof delta.partial_json !== "string") return;
        // A server tool's input (an unknown block) grows by the same delta type.
        if (!this.asm.toolDelta(k, delta.partial_json)) this.asm.unknownDelta(k, delta);
        return;
      default:
        this.asm.unknownDelta(k, delta);
    }
  }

  private messageDelta(payload: Json): void {
    const delta = isPlainObject(payload.delta) ? payload.delta : {};
    if (typeof delta.stop_reason === "string") this.stopReason = delta.stop_reason;
    if (typeof delta.stop_sequence === "string") this.asm.setMeta("stop_sequence", delta.stop_sequence);
    // The code-execution container, to reuse next turn via `providerOptions.anthropic.container`.
    if (isPlainObject(delta.container)) this.asm.setMeta("container", delta.container);
    if (!isPlainObject(payload.usage)) return;
    this.overwriteUsage(payload.usage);
    this.asm.setUsage({ ...this.usage });
  }

  /** Usage counters are cumulative: each one present replaces the earlier value, never adds to it. */
  private overwriteUsage(wire: Json): void {
    for (const field of [
      "input_tokens",
      "output_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
    ] as const) {
      const value = wire[field];
      if (typeof value === "number" && Number.isFinite(value)) this.usage[field] = value;
    }
  }

  private outcome(): Outcome {
    const wire = this.stopReason;
    if (wire !== undefined && KNOWN_STOP_REASONS.has(wire)) return { stopReason: wire as StopReason };
    if (wire === "model_context_window_exceeded") return { stopReason: "max_tokens" };
    // A reason added after this version: kept for the curious, and the neutral one that fits is picked.
    if (wire !== undefined) this.asm.setMeta("stop_reason", wire);
    return { stopReason: this.asm.toolUses > 0 ? "tool_use" : "end_turn" };
  }
}

/** The assembler key of a wire index (cached: one string per block, not per delta). */
const KEYS: string[] = [];
function key(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= 1024) return String(index);
  let cached = KEYS[index];
  if (cached === undefined) {
    cached = String(index);
    KEYS[index] = cached;
  }
  return cached;
}

function malformed(detail: string): ProviderError {
  return new ProviderError({
    message: `Anthropic stream is malformed: ${detail}`,
    type: "invalid_stream",
    isRetryable: false,
  });
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
