import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, retryDelay } from "./retry-policy.js";

const headers = (h: Record<string, string>) => new Headers(h);

describe("isRetryableStatus", () => {
  it("retries 408, 409, 429, 5xx and 529; never 400, 401, 403, 404, 413, 422", () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529])
      expect(isRetryableStatus(status), `${status}`).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422])
      expect(isRetryableStatus(status), `${status}`).toBe(false);
  });

  it("lets the server's x-should-retry header decide", () => {
    expect(isRetryableStatus(400, headers({ "x-should-retry": "true" }))).toBe(true);
    expect(isRetryableStatus(503, headers({ "x-should-retry": "false" }))).toBe(false);
    expect(isRetryableStatus(503, headers({ "x-should-retry": "maybe" }))).toBe(true);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads retry-after-ms first, then retry-after seconds, then an HTTP date", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(parseRetryAfter(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }), now)).toBe(7000);
    // A date already past means "now", not a negative wait.
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now)).toBe(0);
  });

  it("ignores absent, negative and unparseable values", () => {
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "-3" }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after-ms": "x", "retry-after": "1" }), now)).toBe(1000);
  });
});

describe("retryDelay", () => {
  it("defaults: 4 retries, 500 ms base, 30 s cap, 120 s budget", () => {
    expect(DEFAULT_RETRY).toEqual({
      maxRetries: 4,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxTotalMs: 120_000,
    });
    expect(retryDelay({ attempt: 4, elapsedMs: 0 }, {}, () => 0.5)).toBe(3500);
    expect(retryDelay({ attempt: 5, elapsedMs: 0 }, {}, () => 0.5)).toBeUndefined();
  });

  it("jitter keeps 75–100% of a nominal delay that doubles per attempt up to maxDelayMs", () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000, maxRetries: 10 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelay({ attempt, elapsedMs: 0 }, o, () => 0))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(
      [1, 2, 3, 4, 5, 6].map((attempt) => retryDelay({ attempt, elapsedMs: 0 }, o, () => 0.999999)),
    ).toEqual([75, 150, 300, 600, 750, 750]);
    expect(retryDelay({ attempt: 3, elapsedMs: 0 }, o, () => 0.5)).toBe(350);
  });

  it("the first retry of a 529 comes after most of its 500 ms, never after a few ms (was 17 ms with full jitter)", () => {
    let low = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 1000; i++) low = Math.min(low, retryDelay({ attempt: 1, elapsedMs: 0 }) ?? 0);
    expect(low).toBeGreaterThanOrEqual(375);
    expect(retryDelay({ attempt: 1, elapsedMs: 0 }, {}, () => 0.966)).toBeGreaterThanOrEqual(375);
  });

  it("honours retry-after as is, beyond maxDelayMs and without jitter", () => {
    expect(retryDelay({ attempt: 1, elapsedMs: 0, retryAfterMs: 45_000 }, {}, () => 0)).toBe(45_000);
  });

  it("keeps within the budget: trims backoff, refuses a retry-after that does not fit, stops when spent", () => {
    const o = { maxTotalMs: 1000, baseDelayMs: 800 };
    expect(retryDelay({ attempt: 2, elapsedMs: 700 }, o, () => 0.99)).toBe(300);
    expect(retryDelay({ attempt: 1, elapsedMs: 500, retryAfterMs: 500 }, o)).toBe(500);
    expect(retryDelay({ attempt: 1, elapsedMs: 500, retryAfterMs: 501 }, o)).toBeUndefined();
    expect(retryDelay({ attempt: 1, elapsedMs: 1000 }, o)).toBeUndefined();
  });

  it("maxRetries 0 disables retries", () => {
    expect(retryDelay({ attempt: 1, elapsedMs: 0 }, { maxRetries: 0 })).toBeUndefined();
  });
});
