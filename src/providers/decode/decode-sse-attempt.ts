import type { AssistantMessage, StopReason } from "../../messages/index.js";
import { coalesceDeltas } from "../../stream/coalesce-deltas.js";
import { decodeSseBatches, type SseEvent } from "../../stream/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { type IdleOptions, IdleWatch, idleLimits, isStallNotice } from "../http/idle-watch.js";
import { abortedError, networkError, ProviderError } from "../http/provider-error.js";
import type { StreamAttemptResult } from "../http/stream-with-retries.js";
import type { MessageAssembler } from "./message-assembler.js";

/** What one decoded attempt is given besides the response. */
export interface AttemptOptions {
  /** The caller's abort. */
  signal?: AbortSignal | undefined;
  /** How long the body may stay silent (default `DEFAULT_IDLE_LIMITS`). */
  idle?: IdleOptions | undefined;
}

/** How a decoded stream ended, as the decoder sees it. */
export interface Outcome {
  stopReason: StopReason;
  /** The failure, for `stop_reason: "error"` (its `isRetryable` lets `streamWithRetries` retry an empty attempt). */
  error?: ProviderError;
  /** The message was cut before its end. */
  incomplete?: boolean;
}

/** What an adapter's decoder does with the SSE events of one response. */
export interface SseFrameHandler {
  /**
   * Handles one event, calling the assembler. Returns the outcome when this event ends the message (a terminal
   * event, an error event); the rest of the body is then not read. May throw: that ends the message as an error.
   */
  frame(event: SseEvent): Outcome | undefined;
  /** The body ended without a terminal event: decides how the message ends (usually a cut connection). */
  end(): Outcome;
}

/**
 * Decodes one ok response for `streamWithRetries`: SSE events through `handler` into `asm`, the queued events
 * yielded as they come, and the attempt's result. Never throws: a body that fails to read is a retryable network
 * error, an abort ends with `aborted`, a handler exception (a malformed payload) a non-retryable `invalid_stream`.
 *
 * While a read is pending, each `stallWarningMs` of silence yields a `stream-stalled` event; after
 * `idleTimeoutMs` the body is cancelled and the attempt ends with a retryable `network_error` (its message says
 * "idle timeout"), which `streamWithRetries` retries when nothing had been delivered yet.
 */
export async function* decodeSseAttempt(
  response: Response,
  asm: MessageAssembler,
  handler: SseFrameHandler,
  options: AttemptOptions = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const { signal } = options;
  const limits = idleLimits(options.idle);
  // One signal for the reads: the caller's abort, or the idle watch giving up.
  const reads = new AbortController();
  let idleFor: number | undefined;
  const watch = new IdleWatch(limits, (silentMs) => {
    idleFor = silentMs;
    reads.abort(new Error(`no data for ${seconds(silentMs)}`));
  });
  const forward = () => reads.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  let outcome: Outcome | undefined;
  let batches: AsyncGenerator<SseEvent[]> | undefined;
  try {
    if (response.body === null) throw new ProviderError(invalidStream("the response has no body"));
    // One step per network read: the events of a read are handled together and their deltas merged.
    batches = decodeSseBatches(response.body, { signal: reads.signal, onRead: () => watch.touch() });
    for (;;) {
      const next = batches.next();
      let step = await watch.wait(next);
      while (isStallNotice(step)) {
        yield { type: "stream-stalled", silentMs: step.silentMs, timeoutMs: limits.idleTimeoutMs };
        step = await watch.wait(next);
      }
      if (step.done === true) break;
      for (const event of step.value) {
        try {
          outcome = handler.frame(event);
        } catch (cause) {
          outcome = { stopReason: "error", error: asStreamError(cause), incomplete: true };
        }
        if (outcome) break;
      }
      yield* coalesceDeltas(asm.drain());
      if (outcome) break;
    }
    outcome ??= signal?.aborted ? abortedOutcome(signal) : handler.end();
  } catch (cause) {
    if (signal?.aborted) outcome = abortedOutcome(signal);
    else if (idleFor !== undefined) outcome = idleOutcome(idleFor);
    else if (cause instanceof ProviderError)
      outcome = { stopReason: "error", error: cause, incomplete: true };
    else outcome = { stopReason: "error", error: networkError(cause, "Stream failed"), incomplete: true };
  } finally {
    watch.stop();
    signal?.removeEventListener("abort", forward);
    // The rest of the body is not needed (a terminal event came, or the consumer stopped): cancel it. A read
    // still pending (the consumer stopped during a stall) is aborted first, so the cancel does not wait on it.
    if (outcome === undefined) reads.abort(new Error("the stream was closed"));
    batches?.return(undefined).catch(() => {});
  }
  const message = asm.finish(termination(outcome));
  yield* asm.drain();
  const result: StreamAttemptResult = { message, contentDelivered: asm.hasContent };
  if (outcome.error) result.error = outcome.error;
  return result;
}

/** `90 s`, `0.4 s`. */
function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** A stream that went silent: retryable, as a dropped connection is. */
function idleOutcome(silentMs: number): Outcome {
  return {
    stopReason: "error",
    error: new ProviderError({
      message: `The provider sent nothing for ${seconds(silentMs)} (idle timeout); the connection was dropped`,
      type: "network_error",
      isRetryable: true,
    }),
    incomplete: true,
  };
}

function abortedOutcome(signal: AbortSignal): Outcome {
  return { stopReason: "aborted", error: abortedError(signal), incomplete: true };
}

/** The assembler's termination: the error as the message carries it. */
function termination(outcome: Outcome): {
  stopReason: StopReason;
  incomplete?: boolean;
  error?: NonNullable<AssistantMessage["error"]>;
} {
  const out: ReturnType<typeof termination> = { stopReason: outcome.stopReason };
  if (outcome.incomplete) out.incomplete = true;
  if (outcome.error && outcome.stopReason === "error") {
    const summary: NonNullable<AssistantMessage["error"]> = {
      type: outcome.error.type,
      message: outcome.error.message,
      retryable: outcome.error.isRetryable,
    };
    if (outcome.error.status !== undefined) summary.status = outcome.error.status;
    out.error = summary;
  }
  return out;
}

function asStreamError(cause: unknown): ProviderError {
  if (cause instanceof ProviderError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ProviderError({ ...invalidStream(detail), cause });
}

function invalidStream(detail: string): { message: string; type: string; isRetryable: false } {
  return {
    message: `Malformed stream from the provider: ${detail}`,
    type: "invalid_stream",
    isRetryable: false,
  };
}

/** The standard outcome for a body that ended before the provider's terminal event. */
export function cutOutcome(provider: string): Outcome {
  return {
    stopReason: "error",
    error: new ProviderError({
      message: `${provider} stream ended before the response was complete (connection closed)`,
      type: "network_error",
      isRetryable: true,
    }),
    incomplete: true,
  };
}

/** Parses an SSE data payload; a payload that is not JSON is a malformed stream (thrown, caught above). */
export function parsePayload(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProviderError(invalidStream(`an event is not JSON: ${data.slice(0, 200)}`));
  }
}
