import type { StreamEvent } from "../../stream/stream-event.js";
import type { PostJsonArgs } from "../http/post-json.js";
import type { RetryOptions } from "../http/retry-policy.js";
import { type StreamAttemptResult, streamWithRetries } from "../http/stream-with-retries.js";
import type { CallOptions, ModelRequest, Provider } from "../provider.js";
import { redactHeaders } from "./redact-headers.js";

/** What one wire protocol adds to the HTTP lifecycle every adapter shares. */
export interface HttpProviderSpec {
  api: string;
  /** The endpoint of a request (Gemini's names the model). */
  url: (request: ModelRequest) => string;
  /** Sent on every request; `encode` shows them with the secrets redacted. */
  headers: Record<string, string>;
  /** Header names the caller configured (models.json `headers`): `encode` redacts them too (`isSecretHeader`). */
  secretHeaders?: readonly string[] | undefined;
  /** The wire body of a request, the same for `encode` and `stream`. */
  body: (request: ModelRequest) => unknown;
  parseError: PostJsonArgs["parseError"];
  /** Decodes one ok response (see `StreamWithRetriesArgs.decode`), with the call's options. */
  decode: (response: Response, call: CallOptions) => AsyncGenerator<StreamEvent, StreamAttemptResult>;
  fetch?: typeof fetch | undefined;
  retry?: RetryOptions | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  random?: (() => number) | undefined;
}

/**
 * A provider that POSTs the encoded body and streams the answer with retries (`streamWithRetries`), so
 * `stream` never throws; `encode` is the same request as `stream` sends, headers redacted.
 */
export function createHttpProvider(spec: HttpProviderSpec): Provider {
  return {
    api: spec.api,
    encode(request) {
      return {
        url: spec.url(request),
        method: "POST",
        headers: redactHeaders(spec.headers, spec.secretHeaders),
        body: spec.body(request),
      };
    },
    stream(request, call = {}) {
      return streamWithRetries({
        post: {
          url: spec.url(request),
          headers: spec.headers,
          body: spec.body(request),
          parseError: spec.parseError,
          ...(spec.fetch ? { fetch: spec.fetch } : {}),
        },
        decode: (response) => spec.decode(response, call),
        signal: call.signal,
        retry: spec.retry,
        sleep: spec.sleep,
        random: spec.random,
      });
    },
  };
}
