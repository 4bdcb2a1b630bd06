/** Everything a caller needs to report, log or retry a failed provider call. */
export interface ProviderErrorInit {
  /** The full, human-readable message (see `describeApiError`). */
  message: string;
  /** The provider's error type (`rate_limit_error`, `overloaded_error`) or mitsu's (`network_error`, `aborted`). */
  type: string;
  /** HTTP status; absent for network errors, aborts and mid-stream error events. */
  status?: number;
  requestId?: string;
  headers?: Record<string, string>;
  /** The parsed error body (or its text when it was not JSON). */
  body?: unknown;
  isRetryable: boolean;
  /** What the server asked us to wait (`retry-after-ms` / `retry-after`), when it said. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * A typed failure of a provider call: HTTP error, network error, abort, or an error event in the stream.
 * Thrown by `postJson`; adapters turn it into a `message-end` with `stop_reason: "error"` (or `"aborted"`).
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly type: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly isRetryable: boolean;
  readonly retryAfterMs?: number;

  constructor(init: ProviderErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.type = init.type;
    this.isRetryable = init.isRetryable;
    // Assigned one by one so that absent fields stay absent (exactOptionalPropertyTypes, clean JSON).
    if (init.status !== undefined) this.status = init.status;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.headers !== undefined) this.headers = init.headers;
    if (init.body !== undefined) this.body = init.body;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * The standard message: `Anthropic API error 429 rate_limit_error: Too many requests (request-id req_…)`.
 * Missing parts are left out rather than printed as `undefined`.
 */
export function describeApiError(parts: {
  provider: string;
  status?: number | undefined;
  type?: string | undefined;
  message?: string | undefined;
  requestId?: string | undefined;
}): string {
  let text = `${parts.provider} API error`;
  if (parts.status !== undefined) text += ` ${parts.status}`;
  if (parts.type) text += ` ${parts.type}`;
  text += `: ${parts.message || "(no message)"}`;
  if (parts.requestId) text += ` (request-id ${parts.requestId})`;
  return text;
}

/** Response headers as a plain object (lower-case names), for errors and logs. */
export function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/** The error `postJson` throws when the caller's signal aborts (before, during or between attempts). */
export function abortedError(signal?: AbortSignal): ProviderError {
  const reason: unknown = signal?.reason;
  const detail = reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "";
  return new ProviderError({
    message: detail ? `Request aborted: ${detail}` : "Request aborted",
    type: "aborted",
    isRetryable: false,
    cause: reason,
  });
}

/** A failure to reach the server or to read its answer (DNS, reset, dropped connection). Always retryable. */
export function networkError(cause: unknown, what = "Network error"): ProviderError {
  let detail = cause instanceof Error ? cause.message : String(cause);
  // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, a TLS error) is on its cause.
  const inner =
    cause instanceof Error ? (cause.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const reason =
    typeof inner?.code === "string" ? inner.code : typeof inner?.message === "string" ? inner.message : "";
  if (reason && !detail.includes(reason)) detail = `${detail} (${reason})`;
  return new ProviderError({
    message: `${what}: ${detail}`,
    type: "network_error",
    isRetryable: true,
    cause,
  });
}
