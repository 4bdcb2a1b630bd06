import { describeApiError, headersToRecord, ProviderError } from "../http/provider-error.js";
import { isRetryableStatus, parseRetryAfter } from "../http/retry-policy.js";

/** Anthropic's error envelope: `{"type":"error","error":{"type","message"},"request_id"}`. */
interface ErrorEnvelope {
  error?: { type?: unknown; message?: unknown };
  request_id?: unknown;
}

/** Error types that a later identical request may not hit (mid-stream error events carry no status). */
const RETRYABLE_TYPES = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

/** Builds the typed error for a non-ok HTTP response (`postJson`'s `parseError`). */
export function parseAnthropicError(status: number, text: string, headers: Headers): ProviderError {
  const body = parseBody(text);
  const envelope = isObject(body) ? (body as ErrorEnvelope) : {};
  const type = typeof envelope.error?.type === "string" ? envelope.error.type : `http_${status}`;
  const message =
    typeof envelope.error?.message === "string" ? envelope.error.message : text.slice(0, 500) || undefined;
  const requestId =
    headers.get("request-id") ??
    (typeof envelope.request_id === "string" ? envelope.request_id : undefined) ??
    undefined;
  const retryAfterMs = parseRetryAfter(headers);
  return new ProviderError({
    message: describeApiError({
      provider: "Anthropic",
      status,
      type,
      ...opt("message", message),
      ...opt("requestId", requestId),
    }),
    type,
    status,
    ...opt("requestId", requestId),
    headers: headersToRecord(headers),
    body,
    isRetryable: isRetryableStatus(status, headers),
    ...opt("retryAfterMs", retryAfterMs),
  });
}

/** Builds the typed error for an `event: error` inside the stream. */
export function parseAnthropicStreamError(payload: unknown): ProviderError {
  const envelope = isObject(payload) ? (payload as ErrorEnvelope) : {};
  const type = typeof envelope.error?.type === "string" ? envelope.error.type : "api_error";
  const message =
    typeof envelope.error?.message === "string" ? envelope.error.message : JSON.stringify(payload);
  const requestId = typeof envelope.request_id === "string" ? envelope.request_id : undefined;
  return new ProviderError({
    message: describeApiError({ provider: "Anthropic", type, message, ...opt("requestId", requestId) }),
    type,
    ...opt("requestId", requestId),
    body: payload,
    isRetryable: RETRYABLE_TYPES.has(type),
  });
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{ key: value }` when value is defined, else `{}` (exactOptionalPropertyTypes forbids explicit undefined). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
