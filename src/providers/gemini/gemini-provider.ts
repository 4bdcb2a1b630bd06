import type { IdleOptions } from "../http/idle-watch.js";
import { requestHeaders } from "../http/request-headers.js";
import type { RetryOptions } from "../http/retry-policy.js";
import { createHttpProvider } from "../http-provider.js";
import type { ModelRequest, Provider } from "../provider.js";
import { decodeGeminiStream } from "./decode-stream.js";
import { encodeGeminiRequest } from "./encode-request.js";
import { parseGeminiError } from "./parse-gemini-error.js";

export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

export interface GeminiProviderOptions extends IdleOptions {
  /** Sent as `x-goog-api-key`. */
  apiKey?: string | undefined;
  /** Without the version path, as `GEMINI_BASE_URL`: default `https://generativelanguage.googleapis.com`. */
  baseURL?: string | undefined;
  /** The version path segment; default `v1beta` (where tools, thinking and system instructions live). */
  apiVersion?: string | undefined;
  fetch?: typeof fetch | undefined;
  /** Extra headers on every request (they win over the defaults). */
  headers?: Record<string, string> | undefined;
  retry?: RetryOptions | undefined;
  /** Waits between retries (tests make them instant). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Ids for function calls that come without one; default random `call_…`. */
  newId?: (() => string) | undefined;
}

/**
 * The Gemini adapter: `POST {baseURL}/{apiVersion}/models/{model}:streamGenerateContent?alt=sse` with
 * `x-goog-api-key`. `stream` never throws (see `Provider`).
 */
export function createGeminiProvider(options: GeminiProviderOptions = {}): Provider {
  const baseURL = (options.baseURL ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const version = options.apiVersion ?? "v1beta";
  const url = (request: ModelRequest) =>
    `${baseURL}/${version}/models/${encodeURIComponent(request.model.replace(/^models\//, ""))}:streamGenerateContent?alt=sse`;

  return createHttpProvider({
    api: "gemini",
    serverTools: ["web_search"],
    secretHeaders: Object.keys(options.headers ?? {}),
    url,
    headers: requestHeaders(options.apiKey ? { "x-goog-api-key": options.apiKey } : {}, options.headers),
    body: encodeGeminiRequest,
    parseError: parseGeminiError,
    decode: (response, context) =>
      decodeGeminiStream(response, {
        ...context,
        newId: options.newId,
      }),
    fetch: options.fetch,
    retry: options.retry,
    sleep: options.sleep,
    idle: { idleTimeoutMs: options.idleTimeoutMs, stallWarningMs: options.stallWarningMs },
  });
}
