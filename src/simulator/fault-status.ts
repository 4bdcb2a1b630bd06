/**
 * The HTTP status of an `error-event` fault's `errorType` (an Anthropic error type, the scripts' vocabulary)
 * on the OpenAI and Gemini protocols, which have no 529: overload is their 503. Unknown types are 500.
 */
export function faultStatus(errorType: string | undefined): number {
  const type = errorType ?? "overloaded_error";
  return Object.hasOwn(STATUS_BY_TYPE, type) ? STATUS_BY_TYPE[type]! : 500;
}

/** True for the Anthropic error types faultStatus knows; others are passed through as the protocol's own. */
export function isNeutralErrorType(errorType: string | undefined): boolean {
  return errorType === undefined || Object.hasOwn(STATUS_BY_TYPE, errorType);
}

const STATUS_BY_TYPE: Record<string, number> = {
  overloaded_error: 503,
  api_error: 500,
  rate_limit_error: 429,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  timeout_error: 504,
};

/** The retry headers of an http fault (`retry-after` in seconds, `retry-after-ms`). */
export function retryHeaders(fault: {
  retryAfterSeconds?: number;
  retryAfterMs?: number;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
  if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
  return headers;
}
