import { isHeaderRejection } from "./header-problem.js";
import { jsonBytes } from "./json-bytes.js";
import { abortedError, headersToRecord, networkError, ProviderError } from "./provider-error.js";
import { type RetryOptions, retryDelay } from "./retry-policy.js";
import { shownUrl, withUrlShown } from "./shown-url.js";
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
  const start = Date.now();
  // Counted as well as the clock, so the budget holds when an injected sleep returns at once.
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw abortedError(signal);
    const error = await tryOnce(doFetch, args);
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

/** Node's own fetch, as loaded: it copies a Uint8Array body inside the call (`new Request`), before returning. */
const nodeFetch = globalThis.fetch;
/** Bodies up to this size are encoded into one buffer kept for the next request, when Node's fetch sends them. */
const SCRATCH_LIMIT = 8 * 1024 * 1024;
let scratch: Buffer | undefined;
/**
 * Whether the kept buffer is lent to a request whose fetch has not settled. Node's fetch copies the body before it
 * returns, but a wrapper installed as `globalThis.fetch` before this module loaded looks the same here and may
 * read the body later (after an await): until the call settles, another request gets a buffer of its own.
 */
let scratchLent = false;

/**
 * A buffer of `size` bytes for a body Node's fetch sends: the kept one, grown as needed. Node frees a request's
 * buffers only when a GC finds them, and in a long session those of ~40 turns (the body, its copy, the log's and
 * the Read tool's) waited for one full GC: 30 MB of external memory at the peak. Reused, the body is not among
 * them. Safe because Node's fetch has copied the bytes before it returns, and encode and call run in one go.
 */
function scratchBytes(size: number): Buffer {
  if (size > SCRATCH_LIMIT || scratchLent) return Buffer.allocUnsafe(size);
  scratchLent = true;
  if (!scratch || scratch.length < size) {
    scratch = Buffer.allocUnsafeSlow(
      Math.min(SCRATCH_LIMIT, Math.max(size, 2 * (scratch?.length ?? 32_768))),
    );
  }
  return scratch.subarray(0, size);
}

/**
 * The request's init. Its body is encoded afresh for each attempt and referenced by nothing here once `fetch`
 * has it (Node's fetch copies it at once), so it is not held while the response streams.
 */
function init(args: PostJsonArgs, doFetch: typeof fetch): RequestInit {
  // Bytes, not a string: fetch turns a string body into a well-formed copy of it (a large object left for a
  // full GC) and then into bytes; a Uint8Array it copies once (see jsonBytes).
  const body = doFetch === nodeFetch ? jsonBytes(args.body, scratchBytes) : jsonBytes(args.body);
  const init: RequestInit = { method: "POST", headers: args.headers, body };
  if (args.signal) init.signal = args.signal;
  return init;
}

/** One request: the ok Response, or the typed error for whatever went wrong. */
async function tryOnce(doFetch: typeof fetch, args: PostJsonArgs): Promise<Response | ProviderError> {
  let response: Response;
  const wasLent = scratchLent;
  let took = false;
  try {
    const request = init(args, doFetch);
    took = !wasLent && scratchLent;
    response = await doFetch(args.url, request);
  } catch (cause) {
    if (args.signal?.aborted) return abortedError(args.signal);
    if (isHeaderRejection(cause)) {
      // Not the network: the request itself is unsendable, and will be on every retry.
      return new ProviderError({
        message: `Cannot send the request to ${shownUrl(args.url)}: a header is invalid (${withUrlShown((cause as Error).message, args.url)}). Check the headers of this provider (models.json "headers", or the provider's headers option).`,
        type: "invalid_header",
        isRetryable: false,
        cause,
      });
    }
    // The URL as shown: one with a password in it (https://user:pass@proxy/) must not land in a log or a result.
    const error = networkError(cause, `Network error calling ${args.url}`);
    error.message = withUrlShown(error.message, args.url);
    return error;
  } finally {
    if (took) scratchLent = false;
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
      message: `HTTP ${response.status} from ${shownUrl(args.url)}: ${text.slice(0, 500)}`,
      type: "http_error",
      status: response.status,
      headers: headersToRecord(response.headers),
      body: text,
      isRetryable: false,
      cause,
    });
  }
}
