import type { Exchange } from "./sim-context.js";

/**
 * Writes the head of a JSON answer and logs its status: `application/json` and the body's byte length, then
 * `headers` (a `content-type` there replaces the default in place, so the order on the wire stays the same).
 */
export function writeJsonHead(
  ex: Exchange,
  status: number,
  json: string,
  headers: Record<string, string>,
): void {
  ex.log.status = status;
  ex.res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    ...headers,
  });
}
