import { mergeHeaders } from "./merge-headers.js";

/**
 * The headers of a streamed JSON POST: `content-type: application/json`, `accept: text/event-stream`, the
 * API key's header (`auth`, empty when there is no key), then the caller's `extra` on top (see `mergeHeaders`).
 */
export function requestHeaders(
  auth: Record<string, string>,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  return mergeHeaders({ "content-type": "application/json", accept: "text/event-stream", ...auth }, extra);
}
