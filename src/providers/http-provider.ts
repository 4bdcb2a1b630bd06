import type { ServerTool } from "../messages/index.js";
import type { StreamEvent } from "../stream/stream-event.js";
import type { DecodeContext } from "./decode/decode-context.js";
import { toolUseIdsOf } from "./decode/unique-tool-ids.js";
import type { IdleOptions } from "./http/idle-watch.js";
import type { PostJsonArgs } from "./http/post-json.js";
import { redactHeaders } from "./http/redact-headers.js";
import type { RetryOptions } from "./http/retry-policy.js";
import { type StreamAttemptResult, streamWithRetries } from "./http/stream-with-retries.js";
import type { ModelRequest, Provider } from "./provider.js";

/** What one wire protocol adds to the HTTP lifecycle every adapter shares. */
export interface HttpProviderSpec {
  api: string;
  /** See `Provider.serverTools`. */
  serverTools?: readonly ServerTool["type"][];
  /** The endpoint of a request (Gemini's names the model). */
  url: (request: ModelRequest) => string;
  /** Sent on every request; `encode` shows them with the secrets redacted. */
  headers: Record<string, string>;
  /** Header names the caller configured (models.json `headers`): `encode` redacts them too (`isSecretHeader`). */
  secretHeaders?: readonly string[] | undefined;
  /** The wire body of a request, the same for `encode` and `stream`. */
  body: (request: ModelRequest) => unknown;
  parseError: PostJsonArgs["parseError"];
  /**
   * Decodes one ok response (see `StreamWithRetriesArgs.decode`), with the call's signal and live-input choice,
   * the history's tool-use ids and the idle limits.
   */
  decode: (response: Response, context: DecodeContext) => AsyncGenerator<StreamEvent, StreamAttemptResult>;
  /** How long a response body may stay silent (defaults: `DEFAULT_IDLE_LIMITS`). */
  idle?: IdleOptions | undefined;
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
    ...(spec.serverTools ? { serverTools: spec.serverTools } : {}),
    encode(request) {
      return {
        url: spec.url(request),
        method: "POST",
        headers: redactHeaders(spec.headers, spec.secretHeaders),
        body: spec.body(request),
      };
    },
    stream(request, call = {}) {
      const usedToolIds = toolUseIdsOf(request.messages);
      return streamWithRetries({
        post: {
          url: spec.url(request),
          headers: spec.headers,
          body: spec.body(request),
          parseError: spec.parseError,
          ...(spec.fetch ? { fetch: spec.fetch } : {}),
        },
        decode: (response) =>
          spec.decode(response, {
            signal: call.signal,
            live: call.liveInput ?? true,
            usedToolIds,
            idle: spec.idle,
          }),
        signal: call.signal,
        idle: spec.idle,
        retry: spec.retry,
        sleep: spec.sleep,
        random: spec.random,
      });
    },
  };
}
