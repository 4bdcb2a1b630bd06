import type { Exchange } from "./sim-context.js";
import { writeJsonHead } from "./write-json-head.js";

/** Answers an error with its protocol's JSON body, and logs its status and message. */
export function sendJsonError(
  ex: Exchange,
  status: number,
  message: string,
  json: string,
  headers: Record<string, string>,
): void {
  ex.log.error = message;
  writeJsonHead(ex, status, json, headers);
  ex.res.end(json);
}
