import type { IdleOptions } from "../http/idle-watch.js";
import type { RetryOptions } from "../http/retry-policy.js";
import { createHttpProvider } from "../http-provider.js";
import type { Provider } from "../provider.js";
import { decodeAnthropicStream } from "./decode-stream.js";
import { encodeAnthropicRequest } from "./encode-request.js";
import { parseAnthropicError } from "./parse-anthropic-error.js";

export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";
export const FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14";

export interface AnthropicOptions extends IdleOptions {
  /** Sent as `x-api-key`. Not read from the environment here: the model registry does that. */
  apiKey?: string;
  /** Sent as `authorization: Bearer …` (Claude Code's `ANTHROPIC_AUTH_TOKEN`, for gateways); with or without `apiKey`. */
  authToken?: string;
  /** Without the `/v1` path (as `ANTHROPIC_BASE_URL`); default `https://api.anthropic.com`. */
  baseURL?: string;
  fetch?: typeof fetch;
  /** Extra headers, sent after the defaults; an `anthropic-beta` here is combined with the beta option. */
  headers?: Record<string, string>;
  /** `anthropic-version`; default `2023-06-01`. */
  anthropicVersion?: string;
  /**
   * Sends the legacy `anthropic-beta: fine-grained-tool-streaming-2025-05-14` header, which turns on eager input
   * streaming for every tool that does not say `eager_input_streaming: false`.
   */
  fineGrainedBetaHeader?: boolean;
  retry?: RetryOptions;
  /** Test seam: the backoff wait (must reject when the signal aborts). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Test seam: the jitter source. */
  random?: () => number;
}

/** The Messages API adapter (`api: "anthropic"`): `POST {baseURL}/v1/messages` with `stream: true`. */
export function createAnthropicProvider(options: AnthropicOptions = {}): Provider {
  const url = `${(options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, "")}/v1/messages`;
  return createHttpProvider({
    api: "anthropic",
    serverTools: ["web_search"],
    secretHeaders: Object.keys(options.headers ?? {}),
    url: () => url,
    headers: buildHeaders(options),
    body: encodeAnthropicRequest,
    parseError: parseAnthropicError,
    decode: decodeAnthropicStream,
    fetch: options.fetch,
    retry: options.retry,
    sleep: options.sleep,
    random: options.random,
    idle: { idleTimeoutMs: options.idleTimeoutMs, stallWarningMs: options.stallWarningMs },
  });
}

function buildHeaders(options: AnthropicOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    "anthropic-version": options.anthropicVersion ?? DEFAULT_ANTHROPIC_VERSION,
  };
  if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey;
  if (options.authToken !== undefined) headers.authorization = `Bearer ${options.authToken}`;
  const betas: string[] = [];
  if (options.fineGrainedBetaHeader) betas.push(FINE_GRAINED_TOOL_STREAMING_BETA);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    // Header names are case-insensitive: a caller's `Anthropic-Version` replaces ours rather than doubling it.
    const key = name.toLowerCase();
    if (key === "anthropic-beta")
      betas.push(
        ...value
          .split(",")
          .map((b) => b.trim())
          .filter(Boolean),
      );
    else headers[key] = value;
  }
  if (betas.length > 0) headers["anthropic-beta"] = [...new Set(betas)].join(",");
  return headers;
}
