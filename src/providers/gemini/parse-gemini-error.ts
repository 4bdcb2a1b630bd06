import { httpApiError, parseErrorBody, streamApiError } from "../http/api-error.js";
import type { ProviderError } from "../http/provider-error.js";
import { isRetryableStatus } from "../http/retry-policy.js";
import { isPlainObject } from "../is-plain-object.js";

/** Statuses that a later identical request may not hit (errors inside a stream carry no HTTP status). */
const RETRYABLE = new Set(["RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED"]);

/**
 * Google's error envelope `{"error":{"code","message","status"}}` as a typed error (`postJson`'s `parseError`).
 * The type is `status` (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, …), else `http_<code>`. The body may also be an
 * array of one envelope (older endpoints).
 */
export function parseGeminiError(status: number, text: string, headers: Headers): ProviderError {
  const body = parseErrorBody(text);
  const fields = errorFields(body);
  return httpApiError(
    "Gemini",
    { status, text, headers, body },
    { type: fields.status, message: fields.message },
  );
}

/** An `{"error":…}` payload inside the stream. */
export function parseGeminiStreamError(payload: unknown): ProviderError {
  const fields = errorFields(payload);
  const type = fields.status ?? (fields.code !== undefined ? `http_${fields.code}` : "api_error");
  return streamApiError("Gemini", payload, {
    type,
    message: fields.message,
    status: fields.code,
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
