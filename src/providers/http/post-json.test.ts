import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
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

describe("postJson through Node's own fetch, to a real server", () => {
  async function server(answer: (body: Buffer, req: IncomingMessage, res: ServerResponse) => void) {
    const bodies: Array<{ body: Buffer; headers: IncomingMessage["headers"] }> = [];
    const srv = createServer((req, res) => {
      const moved = /^\/moved\/(\d+)\/(.*)$/.exec(req.url ?? "");
      if (moved) {
        res.writeHead(Number(moved[1]), { location: decodeURIComponent(moved[2] ?? "") }).end();
        return;
      }
      if (req.url === "/early") {
        // Answers before reading the body, as a proxy refusing a large request does.
        res.writeHead(413, { connection: "close" }).end("too large");
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        bodies.push({ body, headers: req.headers });
        answer(body, req, res);
      });
    });
    await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
    const { port } = srv.address() as AddressInfo;
    return { bodies, url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => srv.close(r)) };
  }
  const echo = (body: Buffer, _req: IncomingMessage, res: ServerResponse) => res.end(body);
  const args = (url: string, body: unknown, headers: Record<string, string> = {}) => ({
    url,
    headers: { "content-type": "application/json", ...headers },
    body,
    parseError,
    sleep: async () => {},
    random: () => 0.5,
  });

  it("sends the exact bytes with Content-Length, never chunked, a stale length header replaced", async () => {
    const s = await server(echo);
    try {
      const body = { text: "é".repeat(300_000), n: [1, 2, 3] };
      const response = await postJson(args(s.url, body, { "Content-Length": "5" }));
      const expected = JSON.stringify(body);
      expect(await response.text()).toBe(expected);
      expect(s.bodies[0]?.headers["content-length"]).toBe(String(Buffer.byteLength(expected)));
      expect(s.bodies[0]?.headers["transfer-encoding"]).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it("follows a 307 or 308 to the same origin with the same body; any other redirect is a clear error", async () => {
    const s = await server(echo);
    const to = (status: number, location: string) =>
      `${s.url}/moved/${status}/${encodeURIComponent(location)}`;
    try {
      const body = { text: "z".repeat(50_000) };
      expect(await (await postJson(args(to(308, "/ok"), body))).text()).toBe(JSON.stringify(body));
      expect(await (await postJson(args(to(307, to(308, "/ok")), body))).text()).toBe(JSON.stringify(body));
      const refused = async (url: string) =>
        (await postJson(args(url, body)).catch((e: unknown) => e)) as ProviderError;
      const elsewhere = await refused(to(307, "http://user:secret@elsewhere.invalid/v1"));
      expect(elsewhere).toMatchObject({ type: "redirect", status: 307, isRetryable: false });
      expect(elsewhere.message).toMatch(
        /redirected \(307\) to http:\/\/<redacted>@elsewhere\.invalid\/v1: .*another origin/,
      );
      expect((await refused(to(301, "/ok"))).message).toMatch(
        /\(301\) to http:\/\/127\.0\.0\.1:\d+\/ok: a POST is not re-sent as the GET/,
      );
      let loop = "/ok";
      for (let i = 0; i < 6; i++) loop = to(308, loop);
      expect((await refused(loop)).message).toMatch(/more than 5 redirects/);
      // Each refusal is sent once: not retried.
      expect(s.bodies.length).toBe(2);
    } finally {
      await s.close();
    }
  });

  it("concurrent requests and retries each send their own bytes, and the kept buffer survives an early answer", async () => {
    let failures = 1;
    const s = await server((body, req, res) => {
      if (req.url === "/flaky" && failures-- > 0) res.writeHead(503).end("busy");
      else res.end(body);
    });
    try {
      const bodies = ["a", "b", "c"].map((letter, i) => ({ text: letter.repeat(100_000 * (i + 1)) }));
      const answers = await Promise.all(
        bodies.map((body, i) =>
          postJson(args(`${s.url}/${i === 1 ? "flaky" : "ok"}`, body)).then((r) => r.text()),
        ),
      );
      expect(answers).toEqual(bodies.map((body) => JSON.stringify(body)));
      // The retry sent the same bytes again.
      expect(s.bodies.filter((b) => b.body.toString() === JSON.stringify(bodies[1])).length).toBe(2);
      // A server that answers before reading the body: a clear error, and the next request is intact.
      const early = await postJson(args(`${s.url}/early`, { text: "x".repeat(2_000_000) })).catch(
        (e: unknown) => e,
      );
      expect(early).toMatchObject({ status: 413 });
      const after = { text: "y".repeat(2_000_000) };
      expect(await (await postJson(args(`${s.url}/ok`, after))).text()).toBe(JSON.stringify(after));
    } finally {
      await s.close();
    }
  });
});

describe("postJson with a fetch wrapper installed before it loaded", () => {
  it("never lends one body's bytes to another while the wrapper still holds them (it reads after an await)", async () => {
    const original = globalThis.fetch;
    const seen: string[] = [];
    // A wrapper such as a request interceptor: it reads the body only after an await.
    const wrapper = (async (_url: string, init: RequestInit) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      // What Node's fetch is sent: a stream of the bytes, their length in the headers; a wrapper reads it as any body.
      const bytes = new Uint8Array(await new Response(init.body).arrayBuffer());
      expect((init.headers as Record<string, string>)["content-length"]).toBe(String(bytes.length));
      seen.push(new TextDecoder().decode(bytes));
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
