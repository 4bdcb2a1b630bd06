import { describeApiError, headersToRecord, ProviderError } from "./provider-error.js";
import { isRetryableStatus, parseRetryAfter } from "./retry-policy.js";

/** What a provider's error envelope says, each part when it says it. */
export interface ApiErrorFields {
  /** The provider's error type (`rate_limit_error`, `RESOURCE_EXHAUSTED`, …). */
  type?: string | undefined;
  message?: string | undefined;
  requestId?: string | undefined;
}

/** An error response's body: its JSON, else its text; undefined when empty. */
export function parseErrorBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The typed error for a non-ok HTTP response, shared by every adapter's `parseError`: the type is the envelope's,
 * else `http_<status>`; the message the envelope's, else the start of the body text. Retryability comes from the
 * status (and `x-should-retry`), the wait from `retry-after-ms` / `retry-after`.
 */
export function httpApiError(
  provider: string,
  response: { status: number; text: string; headers: Headers; body: unknown },
  fields: ApiErrorFields,
): ProviderError {
  const { status, headers } = response;
  const type = fields.type ?? `http_${status}`;
  const message = fields.message ?? (response.text.slice(0, 500) || undefined);
  const retryAfterMs = parseRetryAfter(headers);
  return new ProviderError({
    message: describeApiError({ provider, status, type, message, requestId: fields.requestId }),
    type,
    status,
    ...(fields.requestId !== undefined ? { requestId: fields.requestId } : {}),
    headers: headersToRecord(headers),
    body: response.body,
    isRetryable: isRetryableStatus(status, headers),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/**
 * The typed error for an error reported inside a stream (no HTTP response): the message is the payload's, else the
 * payload itself as JSON. `status` is a code the payload carries, when it does.
 */
export function streamApiError(
  provider: string,
  payload: unknown,
  fields: ApiErrorFields & { type: string; status?: number | undefined; isRetryable: boolean },
): ProviderError {
  const message = fields.message ?? JSON.stringify(payload);
  const { type, status, requestId } = fields;
  return new ProviderError({
    message: describeApiError({ provider, status, type, message, requestId }),
    type,
    ...(requestId !== undefined ? { requestId } : {}),
    body: payload,
    isRetryable: fields.isRetryable,
  });
}
