import type { AssistantMessage } from "../../messages/index.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { type IdleOptions, IdleWatch, idleLimits, isStallNotice } from "./idle-watch.js";
import { type PostJsonArgs, postJson } from "./post-json.js";
import { abortedError, ProviderError } from "./provider-error.js";
import { type RetryOptions, resolveRetryOptions, retryDelay } from "./retry-policy.js";
import { sleep as defaultSleep } from "./sleep.js";

/** What one decoded attempt came to. */
export interface StreamAttemptResult {
  /** The final message of this attempt, with `stop_reason`, `error` and `incomplete` already set. */
  message: AssistantMessage;
  /** Why the stream failed (error event, dropped connection, abort), when it did. */
  error?: ProviderError;
  /** Whether any content event (a block start or later) was yielded: after that, a retry would duplicate output. */
  contentDelivered: boolean;
}

export interface StreamWithRetriesArgs {
  /** The request; `signal`, `retry`, `onRetry` and `sleep` are managed here. */
  post: Omit<PostJsonArgs, "signal" | "retry" | "onRetry" | "sleep" | "random">;
  /**
   * Decodes one ok response into events (never `message-end`) and returns the attempt's result. Should not
   * throw; if it does, the stream still ends with an `internal_error` message-end.
   */
  decode: (response: Response) => AsyncGenerator<StreamEvent, StreamAttemptResult>;
  signal?: AbortSignal | undefined;
  retry?: RetryOptions | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  random?: (() => number) | undefined;
  /**
   * How long to wait for the response's headers (`idleTimeoutMs`, then the attempt fails as a retryable network
   * error) and how often to say so while waiting (`stallWarningMs`, a `stream-stalled` event). The body's own
   * silence is the decoder's to watch, with the same limits. Defaults: `DEFAULT_IDLE_LIMITS`.
   */
  idle?: IdleOptions | undefined;
}

/**
 * The stream lifecycle every adapter shares. Never throws; ends with exactly one `message-end`.
 * - HTTP errors and network errors are retried (with a `retry` event before each wait) while retryable, within
 *   the retry count and time budget; then the message ends with `stop_reason: "error"` and `error` filled.
 * - A retryable failure inside the stream (an overload error event, a dropped connection) is retried only if no
 *   content event has been delivered yet; otherwise the partial message ends as the decoder left it.
 * - An abort (during the request, the stream or a backoff wait) ends with `stop_reason: "aborted"`.
 * Retry counting and the budget span HTTP and mid-stream retries together. After a `retry` event a new attempt
 * starts over with its own `message-start`; what came before it was only `message-start` / `usage`.
 */
export async function* streamWithRetries(args: StreamWithRetriesArgs): AsyncGenerator<StreamEvent, void> {
  const { signal } = args;
  const retry = resolveRetryOptions(args.retry);
  const wait = args.sleep ?? defaultSleep;
  const start = Date.now();
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    let failure: ProviderError;
    try {
      const response = yield* awaitHeaders(args, signal);
      const result = yield* args.decode(response);
      const error = result.error;
      if (!error?.isRetryable || result.contentDelivered || result.message.stop_reason !== "error") {
        yield { type: "message-end", message: result.message };
        return;
      }
      failure = error;
    } catch (cause) {
      failure = asProviderError(cause, signal);
    }
    if (signal?.aborted || failure.type === "aborted") {
      yield { type: "message-end", message: failedMessage(abortedError(signal)) };
      return;
    }
    const delay = failure.isRetryable
      ? retryDelay(
          { attempt, elapsedMs: Math.max(Date.now() - start, waited), retryAfterMs: failure.retryAfterMs },
          retry,
          args.random,
        )
      : undefined;
    if (delay === undefined) {
      yield { type: "message-end", message: failedMessage(failure, attempt - 1) };
      return;
    }
    yield { type: "retry", attempt, delayMs: delay, reason: failure.message };
    try {
      await wait(delay, signal);
    } catch (cause) {
      yield { type: "message-end", message: failedMessage(asProviderError(cause, signal)) };
      return;
    }
    waited += delay;
  }
}

/**
 * One request, up to its response headers, under the idle watch: `stream-stalled` events while the server says
 * nothing, and at the idle timeout the request is aborted and thrown as a retryable network error. Throws what
 * `postJson` throws otherwise.
 */
async function* awaitHeaders(
  args: StreamWithRetriesArgs,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, Response> {
  const limits = idleLimits(args.idle);
  const request = new AbortController();
  let timedOut: number | undefined;
  const watch = new IdleWatch(limits, (silentMs) => {
    timedOut = silentMs;
    request.abort(new Error("idle timeout"));
  });
  const forward = () => request.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  try {
    const pending = postJson({ ...args.post, retry: { maxRetries: 0 }, signal: request.signal });
    let step = await watch.wait(pending).catch((cause: unknown) => {
      if (timedOut !== undefined && !signal?.aborted) throw headersTimeout(timedOut);
      throw cause;
    });
    while (isStallNotice(step)) {
      yield { type: "stream-stalled", silentMs: step.silentMs, timeoutMs: limits.idleTimeoutMs };
      step = await watch.wait(pending).catch((cause: unknown) => {
        if (timedOut !== undefined && !signal?.aborted) throw headersTimeout(timedOut);
        throw cause;
      });
    }
    return step;
  } finally {
    watch.stop();
    signal?.removeEventListener("abort", forward);
  }
}

function headersTimeout(silentMs: number): ProviderError {
  return new ProviderError({
    message: `The provider sent no response for ${(silentMs / 1000).toFixed(silentMs >= 10_000 ? 0 : 1)} s (idle timeout); the request was dropped`,
    type: "network_error",
    isRetryable: true,
  });
}

function asProviderError(cause: unknown, signal: AbortSignal | undefined): ProviderError {
  if (cause instanceof ProviderError) return cause;
  if (signal?.aborted) return abortedError(signal);
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ProviderError({
    message: `Internal error while streaming: ${detail}`,
    type: "internal_error",
    isRetryable: false,
    cause,
  });
}

/** The message-end for a call that produced no usable stream. */
export function failedMessage(error: ProviderError, retries = 0): AssistantMessage {
  if (error.type === "aborted") {
    return { role: "assistant", content: [], stop_reason: "aborted", incomplete: true };
  }
  const suffix = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
  const summary: NonNullable<AssistantMessage["error"]> = {
    type: error.type,
    message: error.message + suffix,
    retryable: error.isRetryable,
  };
  if (error.status !== undefined) summary.status = error.status;
  if (error.retryAfterMs !== undefined) summary.retryAfterMs = error.retryAfterMs;
  return { role: "assistant", content: [], stop_reason: "error", incomplete: true, error: summary };
}
