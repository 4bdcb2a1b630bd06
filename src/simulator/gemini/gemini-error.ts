import { faultStatus, isNeutralErrorType } from "../fault-status.js";
import { sendJsonError } from "../send-json-error.js";
import type { Exchange } from "../sim-context.js";

/** Google's error object, the body of every error answer: `{"error": GeminiError}`. */
export interface GeminiError {
  code: number;
  message: string;
  status: string;
  details?: unknown[];
}

const BY_STATUS: Record<number, { status: string; message: string }> = {
  400: { status: "INVALID_ARGUMENT", message: "Request contains an invalid argument." },
  401: { status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials." },
  403: { status: "PERMISSION_DENIED", message: "The caller does not have permission." },
  404: { status: "NOT_FOUND", message: "Requested entity was not found." },
  429: { status: "RESOURCE_EXHAUSTED", message: "Resource has been exhausted (e.g. check quota)." },
  500: {
    status: "INTERNAL",
    message:
      "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  },
  503: { status: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
  504: { status: "DEADLINE_EXCEEDED", message: "Deadline expired before operation could complete." },
};

/** The error Google answers for an HTTP status. */
export function geminiErrorForStatus(code: number, message?: string): GeminiError {
  const base = BY_STATUS[code] ?? (code >= 500 ? BY_STATUS[500]! : BY_STATUS[400]!);
  return { code, message: message ?? base.message, status: base.status };
}

/** The error of an `error-event` fault: Anthropic types through their status; others are a 500 named after them. */
export function geminiFaultError(errorType: string | undefined): GeminiError {
  const code = faultStatus(errorType);
  if (isNeutralErrorType(errorType)) return geminiErrorForStatus(code);
  return { code, message: `Simulated ${errorType} error.`, status: "INTERNAL" };
}

/** Answers `{"error": …}` and logs it. */
export function sendGeminiError(
  ex: Exchange,
  error: GeminiError,
  headers: Record<string, string> = {},
): void {
  sendJsonError(ex, error.code, error.message, JSON.stringify({ error }), {
    "content-type": "application/json; charset=UTF-8",
    ...headers,
  });
}

/**
 * The `SendError` of the shared script runner, in Google's shape. A retry-after of an http fault also goes in
 * the body as a RetryInfo detail, where Google puts it.
 */
export function geminiSender(ex: Exchange) {
  return (code: number, message: string | undefined, headers: Record<string, string> = {}) => {
    const error = geminiErrorForStatus(code, message);
    const seconds = headers["retry-after"];
    if (seconds !== undefined) {
      error.details = [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` }];
    }
    sendGeminiError(ex, error, headers);
  };
}

/**
 * The checks Google makes before reading the body: an API key in `x-goog-api-key` or the `key` query parameter
 * (else 403, as for an unregistered caller), then JSON. True when it answered.
 */
export function geminiRejected(ex: Exchange): boolean {
  const query = new URL(ex.req.url ?? "/", "http://sim").searchParams;
  if (!ex.log.headers["x-goog-api-key"] && !query.get("key")) {
    const message =
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or " +
      "other form of API consumer identity to call this API.";
    sendGeminiError(ex, { code: 403, message, status: "PERMISSION_DENIED" });
    return true;
  }
  if (ex.bodyError !== undefined) {
    sendGeminiError(ex, geminiErrorForStatus(400, `Invalid JSON payload received. ${ex.bodyError}`));
    return true;
  }
  return false;
}
