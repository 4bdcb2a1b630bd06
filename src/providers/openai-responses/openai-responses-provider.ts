import type { IdleOptions } from "../http/idle-watch.js";
import { parseOpenAIError } from "../http/parse-openai-error.js";
import { requestHeaders } from "../http/request-headers.js";
import type { RetryOptions } from "../http/retry-policy.js";
import { createHttpProvider } from "../http-provider.js";
import type { Provider } from "../provider.js";
import { decodeResponsesStream } from "./decode-stream.js";
import { encodeResponsesRequest, type ResponsesEncodeOptions } from "./encode-request.js";

export interface OpenAIResponsesProviderOptions extends ResponsesEncodeOptions, IdleOptions {
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
  const encodeOptions: ResponsesEncodeOptions = {};
  if (options.reasoningEffort !== undefined) encodeOptions.reasoningEffort = options.reasoningEffort;
  if (options.reasoningSummary !== undefined) encodeOptions.reasoningSummary = options.reasoningSummary;
  if (options.store !== undefined) encodeOptions.store = options.store;

  return createHttpProvider({
    api: "openai-responses",
    serverTools: ["web_search"],
    secretHeaders: Object.keys(options.headers ?? {}),
    url: () => url,
    headers: requestHeaders(
      options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      options.headers,
    ),
    body: (request) => encodeResponsesRequest(request, encodeOptions),
    parseError: parseOpenAIError,
    decode: (response, context) =>
      decodeResponsesStream(response, {
        ...context,
      }),
    fetch: options.fetch,
    retry: options.retry,
    sleep: options.sleep,
    idle: { idleTimeoutMs: options.idleTimeoutMs, stallWarningMs: options.stallWarningMs },
  });
}
