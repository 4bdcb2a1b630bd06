import { httpApiError, parseErrorBody, streamApiError } from "../http/api-error.js";
import type { ProviderError } from "../http/provider-error.js";
import { isPlainObject } from "../is-plain-object.js";

/**
 * Error types/codes that a later identical request may not hit. Used for errors inside a stream, which carry no
 * HTTP status (Responses `error` events, `{error}` payloads that compatible servers put in a Chat stream).
 */
const RETRYABLE = new Set([
  "server_error",
  "rate_limit_exceeded",
  "rate_limit_error",
  "overloaded",
  "timeout",
]);

/**
 * OpenAI's error envelope `{"error":{"message","type","code","param"}}` as a typed error (`postJson`'s
 * `parseError`). The type is `error.type`, else `error.code`, else `http_<status>`; `x-request-id` is kept.
 * Compatible servers that answer with another shape (plain text, `{"detail":…}`) keep their text in the message.
 */
export function parseOpenAIError(status: number, text: string, headers: Headers): ProviderError {
  const body = parseErrorBody(text);
  const fields = errorFields(body);
  return httpApiError(
    "OpenAI",
    { status, text, headers, body },
    { type: fields.type, message: fields.message, requestId: headers.get("x-request-id") ?? undefined },
  );
}

/** An error reported inside the stream: `{"error":{…}}`, or a Responses `{"type":"error","code","message"}`. */
export function parseOpenAIStreamError(payload: unknown): ProviderError {
  const fields = errorFields(payload);
  const type = fields.type ?? "api_error";
  return streamApiError("OpenAI", payload, {
    type,
    message: fields.message,
    isRetryable: RETRYABLE.has(type) || (fields.code !== undefined && RETRYABLE.has(fields.code)),
  });
}

interface ErrorFields {
  type?: string;
  code?: string;
  message?: string;
}

function errorFields(body: unknown): ErrorFields {
  if (!isPlainObject(body)) return {};
  const inner = isPlainObject(body.error) ? body.error : body;
  const out: ErrorFields = {};
  const code = typeof inner.code === "string" ? inner.code : undefined;
  // A Responses error event has type "error" on the envelope itself: the code says more.
  const type = typeof inner.type === "string" && inner.type !== "error" ? inner.type : code;
  if (type !== undefined) out.type = type;
  if (code !== undefined) out.code = code;
  if (typeof inner.message === "string") out.message = inner.message;
  else if (typeof body.detail === "string") out.message = body.detail;
  return out;
}
