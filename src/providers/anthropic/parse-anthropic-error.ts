import { httpApiError, parseErrorBody, streamApiError } from "../http/api-error.js";
import type { ProviderError } from "../http/provider-error.js";

/** Anthropic's error envelope: `{"type":"error","error":{"type","message"},"request_id"}`. */
interface ErrorEnvelope {
  error?: { type?: unknown; message?: unknown };
  request_id?: unknown;
}

/** Error types that a later identical request may not hit (mid-stream error events carry no status). */
const RETRYABLE_TYPES = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

/** Builds the typed error for a non-ok HTTP response (`postJson`'s `parseError`). */
export function parseAnthropicError(status: number, text: string, headers: Headers): ProviderError {
  const body = parseErrorBody(text);
  const fields = envelopeFields(body);
  return httpApiError(
    "Anthropic",
    { status, text, headers, body },
    { ...fields, requestId: headers.get("request-id") ?? fields.requestId },
  );
}

/** Builds the typed error for an `event: error` inside the stream. */
export function parseAnthropicStreamError(payload: unknown): ProviderError {
  const fields = envelopeFields(payload);
  const type = fields.type ?? "api_error";
  return streamApiError("Anthropic", payload, { ...fields, type, isRetryable: RETRYABLE_TYPES.has(type) });
}

function envelopeFields(body: unknown): { type?: string; message?: string; requestId?: string } {
  const envelope: ErrorEnvelope = isObject(body) ? body : {};
  const out: { type?: string; message?: string; requestId?: string } = {};
  if (typeof envelope.error?.type === "string") out.type = envelope.error.type;
  if (typeof envelope.error?.message === "string") out.message = envelope.error.message;
  if (typeof envelope.request_id === "string") out.requestId = envelope.request_id;
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
