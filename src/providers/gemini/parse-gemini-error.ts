import { describeApiError, headersToRecord, ProviderError } from "../http/provider-error.js";
import { isRetryableStatus, parseRetryAfter } from "../http/retry-policy.js";
import { isPlainObject } from "../shared/tool-use-from-json.js";

/** Statuses that a later identical request may not hit (errors inside a stream carry no HTTP status). */
const RETRYABLE = new Set(["RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED"]);

/**
 * Google's error envelope `{"error":{"code","message","status"}}` as a typed error (`postJson`'s `parseError`).
 * The type is `status` (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, …), else `http_<code>`. The body may also be an
 * array of one envelope (older endpoints).
 */
export function parseGeminiError(status: number, text: string, headers: Headers): ProviderError {
  const body = parseBody(text);
  const fields = errorFields(body);
  const type = fields.status ?? `http_${status}`;
  const message = fields.message ?? (text.slice(0, 500) || undefined);
  const retryAfterMs = parseRetryAfter(headers);
  return new ProviderError({
    message: describeApiError({
      provider: "Gemini",
      status,
      type,
      ...(message !== undefined ? { message } : {}),
    }),
    type,
    status,
    headers: headersToRecord(headers),
    body,
    isRetryable: isRetryableStatus(status, headers),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** An `{"error":…}` payload inside the stream. */
export function parseGeminiStreamError(payload: unknown): ProviderError {
  const fields = errorFields(payload);
  const type = fields.status ?? (fields.code !== undefined ? `http_${fields.code}` : "api_error");
  const message = fields.message ?? JSON.stringify(payload);
  return new ProviderError({
    message: describeApiError({
      provider: "Gemini",
      ...(fields.code !== undefined ? { status: fields.code } : {}),
      type,
      message,
    }),
    type,
    body: payload,
    isRetryable: RETRYABLE.has(type) || (fields.code !== undefined && isRetryableStatus(fields.code)),
  });
}

function errorFields(body: unknown): { status?: string; message?: string; code?: number } {
  const envelope = Array.isArray(body) ? body[0] : body;
  if (!isPlainObject(envelope) || !isPlainObject(envelope.error)) return {};
  const error = envelope.error;
  const out: { status?: string; message?: string; code?: number } = {};
  if (typeof error.status === "string") out.status = error.status;
  if (typeof error.message === "string") out.message = error.message;
  if (typeof error.code === "number") out.code = error.code;
  return out;
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
