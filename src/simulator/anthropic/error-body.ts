/** Anthropic's error envelope: `{"type":"error","error":{"type","message"},"request_id"}`. */
export interface AnthropicErrorBody {
  type: "error";
  error: { type: string; message: string };
  request_id: string;
}

export function anthropicErrorBody(type: string, message: string, requestId: string): AnthropicErrorBody {
  return { type: "error", error: { type, message }, request_id: requestId };
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const MESSAGE_BY_TYPE: Record<string, string> = {
  invalid_request_error: "Invalid request",
  authentication_error: "invalid x-api-key",
  billing_error: "Your credit balance is too low to access the Anthropic API.",
  permission_error: "Your API key does not have permission to use the specified resource.",
  not_found_error: "Not found",
  request_too_large: "Request exceeds the maximum allowed number of bytes.",
  rate_limit_error: "This request would exceed the rate limit for your organization. Please try again later.",
  api_error: "Internal server error",
  timeout_error: "Request timed out",
  overloaded_error: "Overloaded",
};

/** The error type Anthropic uses for an HTTP status (api_error for unknown 5xx, invalid_request_error else). */
export function errorTypeForStatus(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** The HTTP status that carries an error type (the inverse of errorTypeForStatus; 500 when unknown). */
export function statusForErrorType(type: string): number {
  for (const [status, t] of Object.entries(TYPE_BY_STATUS)) if (t === type) return Number(status);
  return 500;
}

/** A message like the real API's for an error type. */
export function defaultErrorMessage(type: string): string {
  return MESSAGE_BY_TYPE[type] ?? "Internal server error";
}
