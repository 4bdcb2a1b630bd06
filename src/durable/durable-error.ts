/** A durable-session call that failed: what went wrong in words, and the HTTP status when a server answered. */
export class DurableError extends Error {
  override readonly name = "DurableError";
  constructor(
    message: string,
    /** The status of the server's answer; undefined when no server answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The message of a Restate error body (`{"message": ...}`), or the body itself, shortened. */
export function restateErrorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // Not JSON: the body as it is.
  }
  return body.length > 500 ? `${body.slice(0, 500)}…` : body || "(empty answer)";
}

/** The words for a fetch that reached no server. */
export function unreachable(what: string, url: string, error: unknown): DurableError {
  const cause =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new DurableError(`Cannot reach the ${what} at ${url} (${cause}). Is the Restate server running?`);
}
