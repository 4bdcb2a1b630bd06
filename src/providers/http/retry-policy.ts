/** How hard to retry a provider call. Every field is optional; defaults in `DEFAULT_RETRY`. */
export interface RetryOptions {
  /** Retries after the first attempt (default 4); 0 disables retries. */
  maxRetries?: number;
  /** The first backoff ceiling (default 500 ms); doubles per attempt. */
  baseDelayMs?: number;
  /** The largest backoff ceiling (default 30 s). */
  maxDelayMs?: number;
  /** The budget: no retry is scheduled that would end more than this long after the first attempt began (default 120 s). */
  maxTotalMs?: number;
}

export const DEFAULT_RETRY: Readonly<Required<RetryOptions>> = Object.freeze({
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 120_000,
});

export function resolveRetryOptions(options: RetryOptions | undefined): Required<RetryOptions> {
  return {
    maxRetries: options?.maxRetries ?? DEFAULT_RETRY.maxRetries,
    baseDelayMs: options?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: options?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    maxTotalMs: options?.maxTotalMs ?? DEFAULT_RETRY.maxTotalMs,
  };
}

/**
 * Whether an HTTP status is worth retrying: 408 (timeout), 409 (lock conflict), 429 (rate limit), 5xx and
 * Anthropic's 529 (overloaded). Client errors (400, 401, 403, 404, 413, 422) never are: the same request fails again.
 * A server's explicit `x-should-retry: true|false` header wins, as in the official SDKs.
 */
export function isRetryableStatus(status: number, headers?: Headers): boolean {
  const hint = headers?.get("x-should-retry");
  if (hint === "true") return true;
  if (hint === "false") return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait the server asked for: `retry-after-ms` (milliseconds), else `retry-after` as seconds or an HTTP date.
 * Returns undefined when absent or unparseable; never negative.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What `retryDelay` needs to know about the situation. */
export interface RetryState {
  /** The retry about to happen: 1 for the first retry. */
  attempt: number;
  /** Time already spent since the first attempt began (requests and waits). */
  elapsedMs: number;
  /** The server's requested wait, if any (`ProviderError.retryAfterMs`). */
  retryAfterMs?: number | undefined;
}

/** The share of the nominal backoff that jitter may take off: a wait is 75–100% of it, as the official SDKs do. */
export const RETRY_JITTER = 0.25;

/**
 * The delay before retry number `attempt`, or undefined when no retry should happen (retries exhausted, or the
 * wait would overrun the budget). Exponential backoff — nominally min(maxDelay, base·2^(n-1)) — of which jitter
 * takes off at most a quarter (uniform in 75–100% of it, as anthropic-sdk-typescript does), so that clients hit by
 * the same overload spread out without coming back almost at once (full jitter made a 500 ms first wait 17 ms).
 * A server-provided retry-after is honoured as is (not jittered, not capped by maxDelayMs); if it does not fit in
 * the remaining budget we give up rather than retry early into a certain rejection. The delay is trimmed to the
 * remaining budget.
 */
export function retryDelay(
  state: RetryState,
  options?: RetryOptions,
  random: () => number = Math.random,
): number | undefined {
  const o = resolveRetryOptions(options);
  if (state.attempt < 1 || state.attempt > o.maxRetries) return undefined;
  const remaining = o.maxTotalMs - state.elapsedMs;
  if (remaining <= 0) return undefined;
  if (state.retryAfterMs !== undefined) {
    return state.retryAfterMs <= remaining ? state.retryAfterMs : undefined;
  }
  const nominal = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (state.attempt - 1));
  return Math.min(Math.floor(nominal * (1 - RETRY_JITTER * random())), remaining);
}
