import type { AssistantMessage, StopReason, Usage } from "../../messages/index.js";
import { emptyUsage } from "../../messages/index.js";
import { coalesceDeltas } from "../../stream/coalesce-deltas.js";
import { decodeSseBatches } from "../../stream/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { networkError, ProviderError } from "../http/provider-error.js";
import type { StreamAttemptResult } from "../http/stream-with-retries.js";
import { applyDelta, type BlockSlot, closeSlot, isPlainObject, openSlot } from "./block-slot.js";
import { parseAnthropicStreamError } from "./parse-anthropic-error.js";

/** One SSE event, as `decodeSse` yields it. */
export interface SseMessage {
  event?: string | undefined;
  data: string;
}

export interface DecodeAnthropicOptions {
  signal?: AbortSignal | undefined;
  /** Decode tool-input string values as they stream (`tool-input-delta.strings`). Default true. */
  liveInput?: boolean | undefined;
}

/** Decodes a Messages API response body. See `decodeAnthropicEvents`. */
export function decodeAnthropicStream(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null,
  options: DecodeAnthropicOptions = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const batches = body
    ? decodeSseBatches(body, options.signal ? { signal: options.signal } : {})
    : emptyEvents();
  return decodeAnthropicBatches(batches, options);
}

/**
 * Turns Messages API SSE events into neutral events, as they arrive, and assembles the message. Yields every
 * event except `message-end`; returns the attempt's result (the final message, with `stop_reason`, `error` and
 * `incomplete` set), for `streamWithRetries` to end the stream or retry. Never throws: a dropped connection, an
 * `error` event, a malformed payload and an abort all end the attempt with the content received so far, each
 * open block closed (an open tool_use becomes `input_status: "incomplete"`, with its raw text).
 */
export function decodeAnthropicEvents(
  events: AsyncIterable<SseMessage>,
  options: DecodeAnthropicOptions = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  return decodeAnthropicBatches(singles(events), options);
}

async function* singles(events: AsyncIterable<SseMessage>): AsyncGenerator<SseMessage[]> {
  for await (const event of events) yield [event];
}

/**
 * `decodeAnthropicEvents` over the SSE events of each network read: the neutral events of one read are
 * produced together, adjacent deltas of a block merged (`coalesceDeltas`), so the per-event cost is paid per read.
 */
async function* decodeAnthropicBatches(
  batches: AsyncIterable<SseMessage[]>,
  options: DecodeAnthropicOptions,
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const { signal } = options;
  const state = new AnthropicMessageState(options.liveInput ?? true);
  let contentDelivered = false;
  let aborted = false;
  let failure: ProviderError | undefined;
  try {
    for await (const batch of batches) {
      const out: StreamEvent[] = [];
      let end = false;
      for (const sse of batch) {
        for (const event of state.handle(sse)) out.push(event);
        if (state.error || state.stopped || signal?.aborted) {
          end = true;
          break;
        }
      }
      for (const event of coalesceDeltas(out)) {
        if (event.type !== "message-start" && event.type !== "usage") contentDelivered = true;
        yield event;
      }
      if (end) break;
    }
  } catch (cause) {
    if (!signal?.aborted) failure = networkError(cause, "Connection lost while streaming");
  }
  // An abort is only an abort if it cut the message short.
  if (signal?.aborted && !state.stopped && !state.error) aborted = true;
  const closing = state.closeAll();
  if (closing.length > 0) contentDelivered = true;
  yield* closing;
  return state.result(aborted, failure, contentDelivered);
}

async function* emptyEvents(): AsyncGenerator<SseMessage[]> {}

const KNOWN_STOP_REASONS = new Set<string>([
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "pause_turn",
  "refusal",
]);

/** The message under assembly: a state machine over the Messages API event types. */
class AnthropicMessageState {
  readonly slots: BlockSlot[] = [];
  /** Wire `index` → slot. The position in `content` is the order of starts, which is the id of each event. */
  private readonly byIndex = new Map<number, BlockSlot>();
  private id: string | undefined;
  private model: string | undefined;
  private usage: Usage = emptyUsage();
  private stopReason: string | undefined;
  private stopSequence: string | undefined;
  private container: Record<string, unknown> | undefined;
  stopped = false;
  error: ProviderError | undefined;

  constructor(private readonly live: boolean) {}

  handle(sse: SseMessage): StreamEvent[] {
    let payload: unknown;
    try {
      payload = JSON.parse(sse.data);
    } catch {
      return this.fail(`not JSON: ${sse.data.slice(0, 200)}`);
    }
    if (!isPlainObject(payload)) return this.fail(`not an object: ${sse.data.slice(0, 200)}`);
    const type = typeof payload.type === "string" ? payload.type : sse.event;
    switch (type) {
      case "message_start":
        return this.onMessageStart(payload);
      case "content_block_start":
        return this.onBlockStart(payload);
      case "content_block_delta": {
        const slot = this.slotFor(payload);
        if (!slot)
          return this.fail(`content_block_delta for a block that was not started: ${sse.data.slice(0, 200)}`);
        return isPlainObject(payload.delta) ? applyDelta(slot, payload.delta) : [];
      }
      case "content_block_stop": {
        // A stop for a block never started carries nothing to lose; ignore it.
        const slot = this.slotFor(payload);
        return slot ? closeSlot(slot, false) : [];
      }
      case "message_delta":
        return this.onMessageDelta(payload);
      case "message_stop":
        this.stopped = true;
        return [];
      case "error":
        this.error = parseAnthropicStreamError(payload);
        return [];
      default:
        // `ping`, and event types added after this version: nothing to assemble.
        return [];
    }
  }

  private onMessageStart(payload: Record<string, unknown>): StreamEvent[] {
    const message = isPlainObject(payload.message) ? payload.message : {};
    if (typeof message.id === "string") this.id = message.id;
    if (typeof message.model === "string") this.model = message.model;
    if (isPlainObject(message.usage)) this.overwriteUsage(message.usage);
    const start: StreamEvent & { type: "message-start" } = { type: "message-start" };
    if (this.model !== undefined) start.model = this.model;
    if (this.id !== undefined) start.id = this.id;
    return [start, { type: "usage", usage: { ...this.usage } }];
  }

  private onBlockStart(payload: Record<string, unknown>): StreamEvent[] {
    const index = payload.index;
    if (typeof index !== "number" || !isPlainObject(payload.content_block)) {
      return this.fail(`malformed content_block_start: ${JSON.stringify(payload).slice(0, 200)}`);
    }
    if (this.byIndex.has(index)) return this.fail(`content_block_start repeated for index ${index}`);
    const { slot, events } = openSlot(String(this.slots.length), payload.content_block, this.live);
    this.slots.push(slot);
    this.byIndex.set(index, slot);
    return events;
  }

  private onMessageDelta(payload: Record<string, unknown>): StreamEvent[] {
    const delta = isPlainObject(payload.delta) ? payload.delta : {};
    if (typeof delta.stop_reason === "string") this.stopReason = delta.stop_reason;
    if (typeof delta.stop_sequence === "string") this.stopSequence = delta.stop_sequence;
    // The code-execution container, to reuse next turn via `providerOptions.anthropic.container`.
    if (isPlainObject(delta.container)) this.container = delta.container;
    if (!isPlainObject(payload.usage)) return [];
    this.overwriteUsage(payload.usage);
    return [{ type: "usage", usage: { ...this.usage } }];
  }

  /** message_delta's counters are cumulative: each one present replaces the earlier value, never adds to it. */
  private overwriteUsage(wire: Record<string, unknown>): void {
    for (const key of [
      "input_tokens",
      "output_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
    ] as const) {
      const value = wire[key];
      if (typeof value === "number" && Number.isFinite(value)) this.usage[key] = value;
    }
  }

  private slotFor(payload: Record<string, unknown>): BlockSlot | undefined {
    return typeof payload.index === "number" ? this.byIndex.get(payload.index) : undefined;
  }

  private fail(detail: string): StreamEvent[] {
    this.error = new ProviderError({
      message: `Anthropic stream is malformed: ${detail}`,
      type: "invalid_stream",
      isRetryable: false,
    });
    return [];
  }

  /** Closes every block still open (the stream ended without their `content_block_stop`). */
  closeAll(): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const slot of this.slots) events.push(...closeSlot(slot, true));
    return events;
  }

  result(
    aborted: boolean,
    failure: ProviderError | undefined,
    contentDelivered: boolean,
  ): StreamAttemptResult {
    const message: AssistantMessage = {
      role: "assistant",
      content: this.slots.flatMap((slot) => (slot.done ? [slot.done] : [])),
    };
    let error = this.error ?? failure;
    if (!aborted && !error && !this.stopped && this.stopReason === undefined) {
      error = networkError("the response ended before message_stop", "Connection lost while streaming");
    }
    if (aborted) {
      message.stop_reason = "aborted";
      message.incomplete = true;
    } else if (error) {
      message.stop_reason = "error";
      message.incomplete = true;
      message.error = { type: error.type, message: error.message, retryable: error.isRetryable };
      if (error.status !== undefined) message.error.status = error.status;
    } else {
      message.stop_reason = this.mapStopReason(message);
    }
    message.usage = this.usage;
    if (this.model !== undefined) message.model = this.model;
    if (this.id !== undefined) message.id = this.id;
    if (this.stopSequence !== undefined) message.meta = { ...message.meta, stop_sequence: this.stopSequence };
    if (this.container !== undefined) message.meta = { ...message.meta, container: this.container };
    const out: StreamAttemptResult = { message, contentDelivered };
    if (error && !aborted) out.error = error;
    return out;
  }

  private mapStopReason(message: AssistantMessage): StopReason {
    const wire = this.stopReason;
    if (wire !== undefined && KNOWN_STOP_REASONS.has(wire)) return wire as StopReason;
    if (wire === "model_context_window_exceeded") return "max_tokens";
    // A reason added after this version: keep it for the curious, and pick the neutral one that fits.
    if (wire !== undefined) message.meta = { ...message.meta, stop_reason: wire };
    return message.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  }
}
