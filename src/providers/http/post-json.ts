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
   * Sent as the UTF-8 bytes of `JSON.stringify(body)` (`jsonBytes`), encoded afresh for each attempt, so that no
   * whole-body string is made: an injected `fetch` receives a `Uint8Array`; Node's own (the global `fetch` as it
   * was when this module loaded) a stream of the bytes, with `content-length` set to their length.
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

/** Node's own fetch, as loaded: given a stream body, it writes the stream's chunks to the socket as they are. */
const nodeFetch = globalThis.fetch;
/** Bodies up to this size are encoded into one buffer kept for the next request, when Node's fetch sends them. */
const SCRATCH_LIMIT = 8 * 1024 * 1024;
let scratch: Buffer | undefined;
/**
 * Whether the kept buffer is lent to a request whose fetch has not settled (a second request meanwhile — a
 * sub-agent's, a summary's — gets a buffer of its own).
 */
let scratchLent = false;

/**
 * A buffer of `size` bytes for a body Node's fetch sends: the kept one, grown as needed. Node frees a request's
 * buffers only when a GC finds them, and in a long session those of ~40 turns (the body, the log's, the Read
 * tool's) waited for one: tens of MB of external memory at the peak. Reused, the body is not among them.
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
 * The bytes as a body Node's fetch sends without copying them: a stream of the one chunk, its length given, so
 * the request still carries `Content-Length` (not chunked). A `Uint8Array` body Node's fetch copies (36 MB of
 * ArrayBuffers for 30 requests of 1 MB, measured, against 0.1 MB this way), and the copies wait for a GC.
 */
function streamed(bytes: Buffer, headers: Record<string, string>): Pick<RequestInit, "body" | "headers"> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const sized: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "content-length") sized[name] = value;
  }
  sized["content-length"] = String(bytes.length);
  return { body, headers: sized };
}

/**
 * The request's init. Its body is encoded afresh for each attempt and referenced by nothing here once `fetch`
 * has it, so it is not held while the response streams. Node's fetch gets it as a stream of the bytes; any
 * other fetch (a custom transport, a test's) as a `Uint8Array` of its own.
 */
function init(args: PostJsonArgs, streaming: boolean): RequestInit {
  // Bytes, not a string: fetch turns a string body into a well-formed copy of it (a large object left for a
  // full GC) and then into bytes (see jsonBytes).
  const init: RequestInit = streaming
    ? ({
        method: "POST",
        ...streamed(jsonBytes(args.body, scratchBytes), args.headers),
        duplex: "half",
        // Followed in `send`: fetch cannot send a stream twice (nor, in Node 20, a Uint8Array: it has detached it).
        redirect: "manual",
      } as RequestInit)
    : { method: "POST", headers: args.headers, body: jsonBytes(args.body) };
  if (args.signal) init.signal = args.signal;
  return init;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** As many redirects as a request follows (fetch's limit is 20; an API endpoint needs one at most). */
const MAX_REDIRECTS = 5;

/**
 * The response to the request through Node's fetch: the body sent as a stream of the kept buffer. A redirect is
 * followed here: a 307 or 308 to the same origin gets the same body again (up to 5 times); any other (a 301, 302
 * or 303 would make the POST a GET; another origin would get the key) is a clear error naming the target. The
 * kept buffer is taken back once the server has answered ok, having read the body; any other answer may come
 * before it has (a 413, a proxy's refusal) while the socket still writes from the buffer, which is then left to
 * the GC.
 */
async function send(doFetch: typeof fetch, args: PostJsonArgs): Promise<Response | ProviderError> {
  if (doFetch !== nodeFetch) return doFetch(args.url, init(args, false));
  let url = args.url;
  for (let hop = 0; ; hop++) {
    const response = await sendOnce(doFetch, url, args);
    const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null;
    if (location === null) return response;
    await response.body?.cancel();
    let next: URL | undefined;
    try {
      next = new URL(location, url);
    } catch {
      // Named below as it was sent.
    }
    if (next && next.origin === new URL(url).origin && response.status >= 307 && hop < MAX_REDIRECTS) {
      url = next.href;
      continue;
    }
    const why =
      hop >= MAX_REDIRECTS
        ? `more than ${MAX_REDIRECTS} redirects`
        : response.status < 307
          ? "a POST is not re-sent as the GET that this redirect asks for"
          : "a request, its body and its key, is not re-sent to another origin";
    return new ProviderError({
      message: `${shownUrl(args.url)} redirected (${response.status}) to ${shownUrl(next?.href ?? location)}: ${why}. Set the provider's base URL to where it should go.`,
      type: "redirect",
      status: response.status,
      isRetryable: false,
    });
  }
}

async function sendOnce(doFetch: typeof fetch, url: string, args: PostJsonArgs): Promise<Response> {
  const wasLent = scratchLent;
  const request = init(args, true);
  const took = !wasLent && scratchLent;
  let ok = false;
  try {
    const response = await doFetch(url, request);
    ok = response.ok;
    return response;
  } finally {
    if (took) {
      if (!ok) scratch = undefined;
      scratchLent = false;
    }
  }
}

/** One request: the ok Response, or the typed error for whatever went wrong. */
async function tryOnce(doFetch: typeof fetch, args: PostJsonArgs): Promise<Response | ProviderError> {
  let response: Response;
  try {
    const sent = await send(doFetch, args);
    if (sent instanceof ProviderError) return sent;
    response = sent;
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
