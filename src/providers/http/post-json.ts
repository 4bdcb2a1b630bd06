import { isHeaderRejection } from "./header-problem.js";
import { jsonBytes } from "./json-bytes.js";
import { abortedError, headersToRecord, networkError, ProviderError } from "./provider-error.js";
import { type RetryOptions, retryDelay } from "./retry-policy.js";
import { sleep as defaultSleep } from "./sleep.js";

export interface PostJsonArgs {
  url: string;
  headers: Record<string, string>;
  /**
   * Sent as the UTF-8 bytes of `JSON.stringify(body)` (`jsonBytes`): `fetch` receives a `Uint8Array`, not a
   * string, so that no whole-body string is made, and the same bytes serve every retry.
   */
  body: unknown;
  /** Injected for tests and custom transports; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
  retry?: RetryOptions;
  /**
   * Builds the typed error for a non-ok response from its status, body text and headers. Must not throw
   * (if it does, a generic error is used). Its `isRetryable` and `retryAfterMs` drive the retries.
   */
  parseError: (status: number, text: string, headers: Headers) => ProviderError;
  /** Called before each wait; `attempt` is 1 for the first retry. */
  onRetry?: (attempt: number, delayMs: number, error: ProviderError) => void;
  /** Injected in tests so that backoff costs no real time. Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source for the backoff (tests make it deterministic). */
  random?: () => number;
}

/**
 * POSTs JSON and returns the first ok `Response`, its body unread (the caller streams it).
 * Retries retryable failures (see `isRetryableStatus`; network errors) with backoff, within `retry`'s count and
 * time budget. Throws a `ProviderError`: the non-retryable error, the last one when retries are exhausted,
 * or type `aborted` when the signal aborts — before a request, during it, or during a backoff wait.
 */
export async function postJson(args: PostJsonArgs): Promise<Response> {
  const doFetch = args.fetch ?? globalThis.fetch;
  const wait = args.sleep ?? defaultSleep;
  const { signal } = args;
  // Bytes, not a string: fetch turns a string body into a well-formed copy of it (a large object left for a
  // full GC) and then into bytes; a Uint8Array it copies once, young (see jsonBytes).
  const payload = jsonBytes(args.body);
  const start = Date.now();
  // Counted as well as the clock, so the budget holds when an injected sleep returns at once.
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw abortedError(signal);
    const error = await tryOnce(doFetch, args, payload);
    if (error instanceof Response) return error;
    if (signal?.aborted) throw abortedError(signal);
    if (!error.isRetryable) throw error;
    const delay = retryDelay(
      {
        attempt: attempt + 1,
        elapsedMs: Math.max(Date.now() - start, waited),
        retryAfterMs: error.retryAfterMs,
      },
      args.retry,
      args.random,
    );
    if (delay === undefined) throw error;
    args.onRetry?.(attempt + 1, delay, error);
    await wait(delay, signal);
    waited += delay;
  }
}

/** One request: the ok Response, or the typed error for whatever went wrong. */
async function tryOnce(
  doFetch: typeof fetch,
  args: PostJsonArgs,
  payload: Uint8Array,
): Promise<Response | ProviderError> {
  let response: Response;
  try {
    const init: RequestInit = { method: "POST", headers: args.headers, body: payload };
    if (args.signal) init.signal = args.signal;
    response = await doFetch(args.url, init);
  } catch (cause) {
    if (args.signal?.aborted) return abortedError(args.signal);
    if (isHeaderRejection(cause)) {
      // Not the network: the request itself is unsendable, and will be on every retry.
      return new ProviderError({
        message: `Cannot send the request to ${args.url}: a header is invalid (${(cause as Error).message}). Check the headers of this provider (models.json "headers", or the provider's headers option).`,
        type: "invalid_header",
        isRetryable: false,
        cause,
      });
    }
    return networkError(cause, `Network error calling ${args.url}`);
  }
  if (response.ok) return response;
  let text = "";
  try {
    text = await response.text();
  } catch {
    if (args.signal?.aborted) return abortedError(args.signal);
    // The error body was lost; the status still says what happened.
  }
  try {
    return args.parseError(response.status, text, response.headers);
  } catch (cause) {
    return new ProviderError({
      message: `HTTP ${response.status} from ${args.url}: ${text.slice(0, 500)}`,
      type: "http_error",
      status: response.status,
      headers: headersToRecord(response.headers),
      body: text,
      isRetryable: false,
      cause,
    });
  }
}
