import { sendJsonError } from "../send-json-error.js";
import type { Exchange } from "../sim-context.js";
import { anthropicErrorBody } from "./error-body.js";

/** Answers an error in Anthropic's shape and records it in the log. */
export function sendError(
  ex: Exchange,
  requestId: string,
  status: number,
  type: string,
  message: string,
  extraHeaders: Record<string, string> = {},
): void {
  const json = JSON.stringify(anthropicErrorBody(type, message, requestId));
  sendJsonError(ex, status, message, json, { "request-id": requestId, ...extraHeaders });
}

/** The checks the API makes before it reads the body's fields: an API key, then JSON. True when it answered. */
export function rejectedBeforeValidation(ex: Exchange, requestId: string): boolean {
  const headers = ex.log.headers;
  if (!headers["x-api-key"] && !headers.authorization) {
    sendError(ex, requestId, 401, "authentication_error", "x-api-key header is required");
    return true;
  }
  if (ex.bodyError !== undefined) {
    sendError(
      ex,
      requestId,
      400,
      "invalid_request_error",
      `There was an error parsing the body: ${ex.bodyError}`,
    );
    return true;
  }
  return false;
}
