/** A tool as the cap sees it: its name, what it weighs in a request, and its server. */
export interface CappedCandidate<T> {
  tool: T;
  server: string;
  /** Bytes of its definition as sent (name, description, input schema as JSON). */
  bytes: number;
}

/**
 * Keeps the MCP tools within `maxBytes` of definitions in all: tools are taken in the order given (the request's
 * order), each that would pass the cap is left out (a smaller one after it may still fit). Returns the tools kept
 * and, per server, how many were left out.
 */
export function capMcpToolBytes<T>(
  candidates: ReadonlyArray<CappedCandidate<T>>,
  maxBytes: number,
): { kept: T[]; dropped: Map<string, number> } {
  const kept: T[] = [];
  const dropped = new Map<string, number>();
  let total = 0;
  for (const { tool, server, bytes } of candidates) {
    if (total + bytes > maxBytes) {
      dropped.set(server, (dropped.get(server) ?? 0) + 1);
      continue;
    }
    total += bytes;
    kept.push(tool);
  }
  return { kept, dropped };
}

/** `5001` as `5,001`. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** `1048576` as `1 MiB`, `524288` as `512 KiB`. */
export function sizeName(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${count(bytes)} bytes`;
}
