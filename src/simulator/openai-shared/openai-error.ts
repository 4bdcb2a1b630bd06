import { faultStatus, isNeutralErrorType } from "../fault-status.js";
import { sendJsonError } from "../send-json-error.js";
import type { Exchange } from "../sim-context.js";

/** OpenAI's error object, the body of every error answer: `{"error": OpenAIError}`. */
export interface OpenAIError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** The error OpenAI answers for an HTTP status (the message of the real API where it has a fixed one). */
export function openAIErrorForStatus(status: number, message?: string): OpenAIError {
  const base = BY_STATUS[status] ?? (status >= 500 ? BY_STATUS[500]! : BY_STATUS[400]!);
  return { ...base, message: message ?? base.message };
}

const BY_STATUS: Record<number, OpenAIError> = {
  400: { message: "Invalid request.", type: "invalid_request_error", param: null, code: null },
  401: {
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    param: null,
    code: "invalid_api_key",
  },
  403: {
    message: "Project does not have access to this model.",
    type: "invalid_request_error",
    param: null,
    code: "model_not_found",
  },
  404: { message: "Not found.", type: "invalid_request_error", param: null, code: null },
  429: {
    message: "Rate limit reached for requests. Please try again in a moment.",
    type: "requests",
    param: null,
    code: "rate_limit_exceeded",
  },
  500: {
    message: "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    param: null,
    code: null,
  },
  503: {
    message: "The server is overloaded or not ready yet.",
    type: "server_error",
    param: null,
    code: null,
  },
};

/**
 * The status and error of an `error-event` fault: an Anthropic error type is translated through its status;
 * any other type (e.g. "insufficient_quota") is OpenAI's own and is used as type and code.
 */
export function openAIFaultError(errorType: string | undefined): { status: number; error: OpenAIError } {
  const status = faultStatus(errorType);
  if (isNeutralErrorType(errorType)) return { status, error: openAIErrorForStatus(status) };
  const type = errorType as string;
  return { status, error: { message: `Simulated ${type} error.`, type, param: null, code: type } };
}

/** Answers `{"error": …}` with OpenAI's headers and logs it. */
export function sendOpenAIError(
  ex: Exchange,
  requestId: string,
  status: number,
  error: OpenAIError,
  headers: Record<string, string> = {},
): void {
  sendJsonError(ex, status, error.message, JSON.stringify({ error }), {
    "x-request-id": requestId,
    ...headers,
  });
}

/**
 * The checks OpenAI makes before reading the body's fields: `Authorization: Bearer <key>`, then JSON.
 * True when it answered.
 */
export function openAIRejected(ex: Exchange, requestId: string): boolean {
  const auth = ex.log.headers.authorization ?? "";
  if (!/^Bearer \S+/.test(auth)) {
    const message =
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer " +
      "auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're " +
      "accessing the API from your browser and are prompted for a username and password. You can obtain an API " +
      "key from https://platform.openai.com/account/api-keys.";
    sendOpenAIError(ex, requestId, 401, { message, type: "invalid_request_error", param: null, code: null });
    return true;
  }
  if (ex.bodyError !== undefined) {
    const message =
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP " +
      "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
    sendOpenAIError(ex, requestId, 400, { message, type: "invalid_request_error", param: null, code: null });
    return true;
  }
  return false;
}

/** An OpenAI validation failure: the message, and the offending parameter and code where the API names them. */
export interface OpenAIInvalid {
  message: string;
  param?: string;
  code?: string;
}

export function invalidError(invalid: OpenAIInvalid): OpenAIError {
  return {
    message: invalid.message,
    type: "invalid_request_error",
    param: invalid.param ?? null,
    code: invalid.code ?? null,
  };
}

/** The `SendError` of the shared script runner, in OpenAI's shape. */
export function openAISender(ex: Exchange, requestId: string) {
  return (status: number, message: string | undefined, headers: Record<string, string> = {}) =>
    sendOpenAIError(ex, requestId, status, openAIErrorForStatus(status, message), headers);
}
