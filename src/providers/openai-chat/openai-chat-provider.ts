import type { IdleOptions } from "../http/idle-watch.js";
import { parseOpenAIError } from "../http/parse-openai-error.js";
import { requestHeaders } from "../http/request-headers.js";
import type { RetryOptions } from "../http/retry-policy.js";
import { createHttpProvider } from "../http-provider.js";
import type { Provider } from "../provider.js";
import { decodeOpenAIChatStream } from "./decode-stream.js";
import { encodeOpenAIChatRequest } from "./encode-request.js";
import { type KnownServer, type OpenAIChatQuirks, resolveQuirks } from "./quirks.js";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIChatProviderOptions extends IdleOptions {
  /** Sent as `Authorization: Bearer …`; local servers need none. */
  apiKey?: string | undefined;
  /** Includes the version path, as `OPENAI_BASE_URL` does: default `https://api.openai.com/v1`. */
  baseURL?: string | undefined;
  fetch?: typeof fetch | undefined;
  /** Extra headers on every request (they win over the defaults). */
  headers?: Record<string, string> | undefined;
  retry?: RetryOptions | undefined;
  /** A known server's name or quirks over the defaults (see `resolveQuirks`). */
  quirks?: KnownServer | Partial<OpenAIChatQuirks> | undefined;
  /** `reasoning_effort` for reasoning models (`minimal`, `low`, `medium`, `high`); not sent when absent. */
  reasoningEffort?: string | undefined;
  /** Waits between retries (tests make them instant). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Ids for tool calls that arrive without one; default random `call_…`. */
  newId?: (() => string) | undefined;
}

/**
 * The Chat Completions adapter, for OpenAI and every compatible server (Ollama, llama.cpp, vLLM, LM Studio,
 * OpenRouter): a base URL plus quirks held as data. `stream` never throws (see `Provider`).
 */
export function createOpenAIChatProvider(options: OpenAIChatProviderOptions = {}): Provider {
  const baseURL = (options.baseURL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const quirks = resolveQuirks(options.quirks, baseURL);
  const url = `${baseURL}/chat/completions`;

  const encodeOptions =
    options.reasoningEffort !== undefined ? { quirks, reasoningEffort: options.reasoningEffort } : { quirks };

  return createHttpProvider({
    api: "openai-chat",
    secretHeaders: Object.keys(options.headers ?? {}),
    url: () => url,
    headers: requestHeaders(
      options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      options.headers,
    ),
    body: (request) => encodeOpenAIChatRequest(request, encodeOptions),
    parseError: parseOpenAIError,
    decode: (response, context) =>
      decodeOpenAIChatStream(response, {
        ...context,
        reasoningField: quirks.reasoningField,
        newId: options.newId,
      }),
    fetch: options.fetch,
    retry: options.retry,
    sleep: options.sleep,
    idle: { idleTimeoutMs: options.idleTimeoutMs, stallWarningMs: options.stallWarningMs },
  });
}
