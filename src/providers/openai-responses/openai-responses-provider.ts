import type { RetryOptions } from "../http/retry-policy.js";
import { streamWithRetries } from "../http/stream-with-retries.js";
import type { CallOptions, EncodedRequest, ModelRequest, Provider } from "../provider.js";
import { mergeHeaders } from "../shared/merge-headers.js";
import { parseOpenAIError } from "../shared/parse-openai-error.js";
import { redactHeaders } from "../shared/redact-headers.js";
import { decodeResponsesStream } from "./decode-stream.js";
import { encodeResponsesRequest, type ResponsesEncodeOptions } from "./encode-request.js";

export interface OpenAIResponsesProviderOptions extends ResponsesEncodeOptions {
  /** Sent as `Authorization: Bearer …`. */
  apiKey?: string | undefined;
  /** Includes the version path, as `OPENAI_BASE_URL` does: default `https://api.openai.com/v1`. */
  baseURL?: string | undefined;
  fetch?: typeof fetch | undefined;
  /** Extra headers on every request (they win over the defaults). */
  headers?: Record<string, string> | undefined;
  retry?: RetryOptions | undefined;
  /** Waits between retries (tests make them instant). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/**
 * The Responses API adapter (`POST {baseURL}/responses`, `stream: true`), stateless: reasoning items come back
 * encrypted in block meta and are sent again with the history. `stream` never throws (see `Provider`).
 */
export function createOpenAIResponsesProvider(options: OpenAIResponsesProviderOptions = {}): Provider {
  const baseURL = (options.baseURL ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const url = `${baseURL}/responses`;
  const defaults: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
  };
  if (options.apiKey) defaults.authorization = `Bearer ${options.apiKey}`;
  const headers = mergeHeaders(defaults, options.headers);
  const encodeOptions: ResponsesEncodeOptions = {};
  if (options.reasoningEffort !== undefined) encodeOptions.reasoningEffort = options.reasoningEffort;
  if (options.reasoningSummary !== undefined) encodeOptions.reasoningSummary = options.reasoningSummary;
  if (options.store !== undefined) encodeOptions.store = options.store;

  return {
    api: "openai-responses",
    encode(request: ModelRequest): EncodedRequest {
      return {
        url,
        method: "POST",
        headers: redactHeaders(headers),
        body: encodeResponsesRequest(request, encodeOptions),
      };
    },
    stream(request: ModelRequest, call: CallOptions = {}) {
      const signal = call.signal;
      return streamWithRetries({
        post: {
          url,
          headers,
          body: encodeResponsesRequest(request, encodeOptions),
          parseError: parseOpenAIError,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        },
        decode: (response) => decodeResponsesStream(response, { signal, live: call.liveInput ?? true }),
        signal,
        retry: options.retry,
        sleep: options.sleep,
      });
    },
  };
}
