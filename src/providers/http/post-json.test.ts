import { describe, expect, it, vi } from "vitest";
import { postJson } from "./post-json.js";
import { describeApiError, ProviderError } from "./provider-error.js";
import { isRetryableStatus, parseRetryAfter } from "./retry-policy.js";
import { sleep } from "./sleep.js";

function parseError(status: number, text: string, headers: Headers): ProviderError {
  const retryAfterMs = parseRetryAfter(headers);
  return new ProviderError({
    message: describeApiError({ provider: "Test", status, message: text }),
    type: `http_${status}`,
    status,
    isRetryable: isRetryableStatus(status, headers),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

function harness(responses: Array<() => Response | Promise<Response>>) {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const sleeps: number[] = [];
  const retries: Array<[number, number, string]> = [];
  return {
    calls,
    sleeps,
    retries,
    args: {
      url: "http://127.0.0.1:1/v1/x",
      headers: { "content-type": "application/json", "x-key": "k" },
      body: { a: 1, s: "é" },
      parseError,
      fetch: async (url: string | URL | Request, init?: RequestInit) => {
        calls.push({ url: String(url), init });
        const next = responses[calls.length - 1];
        if (!next) throw new Error("unexpected call");
        return next();
      },
      sleep: async (ms: number) => {
        sleeps.push(ms);
      },
      onRetry: (attempt: number, delay: number, error: ProviderError) => {
        retries.push([attempt, delay, error.type]);
      },
      random: () => 0.5,
    },
  };
}

const status =
  (code: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(`status ${code}`, { status: code, headers });

describe("postJson", () => {
  it("POSTs the JSON body with the headers and returns the ok response unread", async () => {
    const h = harness([() => new Response("data: 1\n\n", { status: 200 })]);
    const response = await postJson(h.args);
    expect(response.bodyUsed).toBe(false);
    expect(await response.text()).toBe("data: 1\n\n");
    expect(h.calls[0]?.url).toBe("http://127.0.0.1:1/v1/x");
    expect(h.calls[0]?.init).toMatchObject({ method: "POST", headers: h.args.headers });
    const body = h.calls[0]?.init?.body;
    expect(body).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(body as Uint8Array).equals(Buffer.from('{"a":1,"s":"é"}'))).toBe(true);
  });

  it("retries retryable statuses with backoff, reporting each retry", async () => {
    const h = harness([status(503), status(429, { "retry-after-ms": "70" }), status(200)]);
    const response = await postJson(h.args);
    expect(response.status).toBe(200);
    expect(h.sleeps).toEqual([437, 70]);
    expect(h.retries).toEqual([
      [1, 437, "http_503"],
      [2, 70, "http_429"],
    ]);
  });

  it("throws a non-retryable error at once, with the parsed details", async () => {
    const h = harness([status(401)]);
    const error = await postJson(h.args).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      status: 401,
      type: "http_401",
      isRetryable: false,
      message: "Test API error 401: status 401",
    });
    expect(h.calls).toHaveLength(1);
  });

  it("throws the last error when retries are exhausted", async () => {
    const h = harness([status(500), status(502), status(503)]);
    const error = await postJson({ ...h.args, retry: { maxRetries: 2 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, isRetryable: true });
    expect(h.calls).toHaveLength(3);
  });

  it("counts scheduled waits against the budget even when the injected sleep returns at once", async () => {
    const slow = status(429, { "retry-after-ms": "400" });
    const h = harness([slow, slow, slow, slow]);
    const error = await postJson({ ...h.args, retry: { maxTotalMs: 1000 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 400 });
    expect(h.sleeps).toEqual([400, 400]);
  });

  it("retries network errors as network_error", async () => {
    const h = harness([
      () => {
        throw new TypeError("ECONNRESET");
      },
      status(200),
    ]);
    expect((await postJson(h.args)).status).toBe(200);
    expect(h.retries).toEqual([[1, 437, "network_error"]]);
  });

  it("network errors, once exhausted, say what failed", async () => {
    const h = harness([
      () => {
        throw new TypeError("getaddrinfo ENOTFOUND");
      },
    ]);
    const error = await postJson({ ...h.args, retry: { maxRetries: 0 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: "network_error", isRetryable: true });
    expect((error as Error).message).toBe(
      "Network error calling http://127.0.0.1:1/v1/x: getaddrinfo ENOTFOUND",
    );
  });

  it("a parseError that throws still yields a clear error", async () => {
    const h = harness([status(418)]);
    const error = await postJson({
      ...h.args,
      parseError: () => {
        throw new Error("bug");
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: "http_error", status: 418, isRetryable: false, body: "status 418" });
  });

  it("aborts: before the request, and during a backoff wait (real sleep, ended by the signal)", async () => {
    const before = new AbortController();
    before.abort(new Error("user pressed Esc"));
    const h1 = harness([status(200)]);
    const e1 = await postJson({ ...h1.args, signal: before.signal }).catch((e: unknown) => e);
    expect(e1).toMatchObject({
      type: "aborted",
      isRetryable: false,
      message: "Request aborted: user pressed Esc",
    });
    expect(h1.calls).toHaveLength(0);

    const during = new AbortController();
    const h2 = harness([status(503), status(200)]);
    const pending = postJson({
      ...h2.args,
      signal: during.signal,
      // An hour-long real wait: only the abort can end this test in time.
      sleep: (_ms, signal) => sleep(3_600_000, signal),
      onRetry: () => queueMicrotask(() => during.abort()),
    });
    await expect(pending).rejects.toMatchObject({ type: "aborted" });
    expect(h2.calls).toHaveLength(1);
  });
});

describe("sleep", () => {
  it("resolves after the delay, and rejects at once when already aborted", async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const c = new AbortController();
    c.abort();
    await expect(sleep(3_600_000, c.signal)).rejects.toMatchObject({ type: "aborted" });
  });

  it("a header fetch refuses is a clear, non-retryable error naming the header, not a network error", async () => {
    const h = harness([status(200)]);
    // The real fetch: it refuses the header before any connection is made.
    const error = await postJson({ ...h.args, fetch: globalThis.fetch, headers: { "bad name": "x" } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ type: "invalid_header", isRetryable: false });
    expect((error as Error).message).toMatch(/a header is invalid .*"bad name" is an invalid header name/);
    expect(h.sleeps).toEqual([]);
  });
});

describe("postJson with a fetch wrapper installed before it loaded", () => {
  it("never lends one body's bytes to another while the wrapper still holds them (it reads after an await)", async () => {
    const original = globalThis.fetch;
    const seen: string[] = [];
    // A wrapper such as a request interceptor: it reads the body only after an await.
    const wrapper = (async (_url: string, init: RequestInit) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen.push(new TextDecoder().decode(init.body as Uint8Array));
      return new Response("{}", { status: 200 });
    }) as typeof fetch;
    globalThis.fetch = wrapper;
    try {
      vi.resetModules();
      const { postJson: freshPostJson } = await import("./post-json.js");
      const send = (text: string) =>
        freshPostJson({
          url: "http://x.invalid",
          headers: {},
          body: { text },
          parseError: () => new ProviderError({ message: "x", type: "http_error", isRetryable: false }),
        });
      await Promise.all([send("a".repeat(1000)), send("b"), send("c".repeat(10))]);
      expect(seen.sort()).toEqual(
        [`{"text":"${"a".repeat(1000)}"}`, `{"text":"b"}`, `{"text":"${"c".repeat(10)}"}`].sort(),
      );
      // And the kept buffer is lent again once a call has settled.
      await send("d");
      expect(seen.at(-1)).toBe('{"text":"d"}');
    } finally {
      globalThis.fetch = original;
      vi.resetModules();
    }
  });
});
