import { describe, expect, it } from "vitest";
import { chunkedResponse, splitBytes, wireBody } from "../../../test/fixtures.js";
import type { AssistantMessage } from "../../messages/index.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { sleep as realSleep } from "../http/sleep.js";
import type { ModelRequest } from "../provider.js";
import { type AnthropicOptions, createAnthropicProvider } from "./anthropic-provider.js";

const request: ModelRequest = {
  model: "claude-sonnet-4-5",
  system: [{ type: "text", text: "You are terse." }],
  tools: [],
  messages: [{ role: "user", content: [{ type: "text", text: "1+1?" }] }],
  maxTokens: 64,
};

const encoder = new TextEncoder();

/** An SSE body from payload objects (event name = payload type, as Anthropic sends). */
function sse(...payloads: Record<string, unknown>[]): Uint8Array {
  return encoder.encode(
    payloads.map((p) => `event: ${String(p.type)}\ndata: ${JSON.stringify(p)}\n\n`).join(""),
  );
}

const messageStart = {
  type: "message_start",
  message: { id: "msg_x", model: "claude-test", usage: { input_tokens: 5, output_tokens: 1 } },
};

function errorResponse(status: number, type: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: "error", error: { type, message: `${type} happened` } }), {
    status,
    headers: { "content-type": "application/json", "request-id": `req_${status}`, ...headers },
  });
}

interface Harness {
  events: StreamEvent[];
  message: AssistantMessage;
  calls: RequestInit[];
  sleeps: number[];
}

/** Runs one stream with scripted responses (a function per fetch call) and a sleep that records instead of waiting. */
async function runScript(
  script: Array<(init: RequestInit) => Response | Promise<Response>>,
  options: Partial<AnthropicOptions> = {},
  signal?: AbortSignal,
  onEvent?: (event: StreamEvent) => void,
): Promise<Harness> {
  const calls: RequestInit[] = [];
  const sleeps: number[] = [];
  const provider = createAnthropicProvider({
    apiKey: "sk-ant-secret",
    fetch: async (_url, init) => {
      calls.push(init ?? {});
      const step = script[calls.length - 1];
      if (!step) throw new Error(`unexpected request ${calls.length}`);
      return step(init ?? {});
    },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(request, signal ? { signal } : {})) {
    events.push(event);
    onEvent?.(event);
  }
  const last = events.at(-1);
  if (last?.type !== "message-end") throw new Error("no message-end");
  expect(events.filter((e) => e.type === "message-end")).toHaveLength(1);
  return { events, message: last.message, calls, sleeps };
}

const ok = () => chunkedResponse([wireBody("anthropic-text-basic.sse")]);

describe("createAnthropicProvider: the request", () => {
  it("encode shows the exact request with the key redacted", () => {
    const provider = createAnthropicProvider({ apiKey: "sk-ant-secret", baseURL: "http://127.0.0.1:8080/" });
    const encoded = provider.encode(request);
    expect(provider.api).toBe("anthropic");
    expect(encoded).toEqual({
      url: "http://127.0.0.1:8080/v1/messages",
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        "anthropic-version": "2023-06-01",
        "x-api-key": "<redacted>",
      },
      body: {
        model: "claude-sonnet-4-5",
        max_tokens: 64,
        system: [{ type: "text", text: "You are terse." }],
        messages: [{ role: "user", content: [{ type: "text", text: "1+1?" }] }],
        stream: true,
      },
    });
    expect(JSON.stringify(encoded)).not.toContain("sk-ant-secret");
  });

  it("sends the real key, the encoded body, and the beta header when asked (combined with caller betas)", async () => {
    let url = "";
    const provider = createAnthropicProvider({
      apiKey: "sk-ant-secret",
      fineGrainedBetaHeader: true,
      anthropicVersion: "2099-01-01",
      headers: { "Anthropic-Beta": "context-1m-2025-08-07", "X-Trace": "t1", Authorization: "Bearer tok" },
      fetch: async (input, init) => {
        url = String(input);
        const headers = init?.headers as Record<string, string>;
        expect(headers).toEqual({
          "content-type": "application/json",
          accept: "text/event-stream",
          "anthropic-version": "2099-01-01",
          "x-api-key": "sk-ant-secret",
          "anthropic-beta": "fine-grained-tool-streaming-2025-05-14,context-1m-2025-08-07",
          "x-trace": "t1",
          authorization: "Bearer tok",
        });
        expect(init?.body).toBeInstanceOf(Uint8Array);
        expect(JSON.parse(new TextDecoder().decode(init?.body as Uint8Array))).toEqual(
          provider.encode(request).body,
        );
        expect(init?.method).toBe("POST");
        return ok();
      },
    });
    const events: StreamEvent[] = [];
    for await (const e of provider.stream(request)) events.push(e);
    expect(url).toBe("https://api.anthropic.com/v1/messages");
    expect(events.at(-1)).toMatchObject({ type: "message-end", message: { stop_reason: "end_turn" } });
    expect(provider.encode(request).headers).toMatchObject({ authorization: "Bearer <redacted>" });
  });

  it("encode redacts every secret header a caller adds (a proxy's credentials, cookies), as the other adapters do", () => {
    const headers = createAnthropicProvider({
      apiKey: "k",
      headers: {
        "Proxy-Authorization": "Basic dXNlcjpwYXNz",
        cookie: "session=s3cret",
        "api-key": "azure-key",
      },
    }).encode(request).headers;
    expect(headers).toMatchObject({
      "x-api-key": "<redacted>",
      "proxy-authorization": "<redacted>",
      cookie: "<redacted>",
      "api-key": "<redacted>",
    });
  });

  it("sends no beta header by default", () => {
    const headers = createAnthropicProvider({ apiKey: "k" }).encode(request).headers;
    expect("anthropic-beta" in headers).toBe(false);
  });
});

describe("createAnthropicProvider: retries", () => {
  it("429 with retry-after-ms is retried after exactly that wait, with a retry event", async () => {
    const run = await runScript([
      () => errorResponse(429, "rate_limit_error", { "retry-after-ms": "1234" }),
      ok,
    ]);
    expect(run.calls).toHaveLength(2);
    expect(run.sleeps).toEqual([1234]);
    expect(run.events[0]).toEqual({
      type: "retry",
      attempt: 1,
      delayMs: 1234,
      reason: "Anthropic API error 429 rate_limit_error: rate_limit_error happened (request-id req_429)",
    });
    expect(run.message).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "2" }] });
  });

  it("retry-after in seconds is honoured too", async () => {
    const run = await runScript([() => errorResponse(429, "rate_limit_error", { "retry-after": "3" }), ok]);
    expect(run.sleeps).toEqual([3000]);
  });

  it("529 overloaded, then success: backoff with jitter", async () => {
    const run = await runScript([() => errorResponse(529, "overloaded_error"), ok]);
    expect(run.calls).toHaveLength(2);
    // random() = 0.5: 87.5% of the first nominal wait, 500 ms.
    expect(run.sleeps).toEqual([437]);
    expect(run.events.map((e) => e.type)).toEqual([
      "retry",
      "message-start",
      "usage",
      "text-start",
      "text-delta",
      "text-end",
      "usage",
      "message-end",
    ]);
    expect(run.message.stop_reason).toBe("end_turn");
  });

  it("400 is not retried: the message ends with the typed error", async () => {
    const run = await runScript([() => errorResponse(400, "invalid_request_error")]);
    expect(run.calls).toHaveLength(1);
    expect(run.sleeps).toEqual([]);
    expect(run.events).toHaveLength(1);
    expect(run.message).toEqual({
      role: "assistant",
      content: [],
      stop_reason: "error",
      incomplete: true,
      error: {
        type: "invalid_request_error",
        message:
          "Anthropic API error 400 invalid_request_error: invalid_request_error happened (request-id req_400)",
        status: 400,
        retryable: false,
      },
    });
  });

  it("gives up when the budget is spent: the message ends with the last error", async () => {
    const limited = () => errorResponse(429, "rate_limit_error", { "retry-after-ms": "600" });
    const run = await runScript([limited, limited, limited], { retry: { maxTotalMs: 1000 } });
    expect(run.calls).toHaveLength(2);
    expect(run.sleeps).toEqual([600]);
    expect(run.message.stop_reason).toBe("error");
    expect(run.message.error).toMatchObject({ type: "rate_limit_error", status: 429, retryable: true });
    expect(run.message.error?.message).toMatch(/\(after 1 retry\)$/);
  });

  it("gives up after maxRetries", async () => {
    const failing = () => errorResponse(500, "api_error");
    const run = await runScript([failing, failing, failing], { retry: { maxRetries: 2 } });
    expect(run.calls).toHaveLength(3);
    expect(run.events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.attempt)).toEqual([
      1, 2,
    ]);
    expect(run.message.error?.message).toMatch(/500 api_error.*\(after 2 retries\)$/);
  });

  it("a network error is retried", async () => {
    const run = await runScript([
      () => {
        throw new TypeError("fetch failed");
      },
      ok,
    ]);
    expect(run.calls).toHaveLength(2);
    expect(run.events[0]).toMatchObject({ type: "retry", reason: expect.stringMatching(/fetch failed/) });
    expect(run.message.stop_reason).toBe("end_turn");
  });

  it("a mid-stream overload before any content is retried", async () => {
    const overloaded = () =>
      chunkedResponse([
        sse(
          messageStart,
          { type: "ping" },
          { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        ),
      ]);
    const run = await runScript([overloaded, ok]);
    expect(run.calls).toHaveLength(2);
    expect(run.events.map((e) => e.type).slice(0, 4)).toEqual([
      "message-start",
      "usage",
      "retry",
      "message-start",
    ]);
    expect(run.message).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "2" }] });
    expect(run.message.incomplete).toBeUndefined();
  });

  it("a mid-stream overload after content is not retried: partial message, incomplete, error", async () => {
    const run = await runScript([
      () => chunkedResponse([wireBody("anthropic-error-overloaded-midstream.sse")]),
      ok,
    ]);
    expect(run.calls).toHaveLength(1);
    expect(run.message).toMatchObject({
      stop_reason: "error",
      incomplete: true,
      error: { type: "overloaded_error", retryable: true },
    });
    expect(run.message.content).toHaveLength(2);
  });

  it("a non-retryable error event ends the message without retry", async () => {
    const run = await runScript([
      () =>
        chunkedResponse([
          sse(messageStart, {
            type: "error",
            error: { type: "invalid_request_error", message: "bad" },
            request_id: "req_9",
          }),
        ]),
    ]);
    expect(run.calls).toHaveLength(1);
    expect(run.message.error).toEqual({
      type: "invalid_request_error",
      message: "Anthropic API error invalid_request_error: bad (request-id req_9)",
      retryable: false,
    });
  });

  it("a connection dropped before content is retried; after content it ends incomplete", async () => {
    const cutEarly = () => chunkedResponse([sse(messageStart)]);
    const early = await runScript([cutEarly, ok]);
    expect(early.calls).toHaveLength(2);
    expect(early.message.stop_reason).toBe("end_turn");

    const text = wireBody("anthropic-text-basic.sse");
    const cutLate = () =>
      chunkedResponse([
        text.subarray(0, new TextDecoder().decode(text).indexOf("event: content_block_stop")),
      ]);
    const late = await runScript([cutLate, ok]);
    expect(late.calls).toHaveLength(1);
    expect(late.message).toMatchObject({
      stop_reason: "error",
      incomplete: true,
      content: [{ type: "text", text: "2" }],
      error: { type: "network_error", retryable: true },
    });
    expect(late.events).toContainEqual({ type: "text-end", id: "0", text: "2" });
  });

  it("a body that errors mid-read ends with a network error, content kept", async () => {
    const bytes = sse(
      messageStart,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
    );
    let sent = false;
    const broken = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (!sent) {
              sent = true;
              controller.enqueue(bytes);
            } else controller.error(new Error("socket hang up"));
          },
        }),
      );
    const run = await runScript([broken]);
    expect(run.message).toMatchObject({
      stop_reason: "error",
      incomplete: true,
      content: [{ type: "text", text: "Hel" }],
      error: { type: "network_error", message: expect.stringMatching(/socket hang up/) },
    });
  });
});

describe("createAnthropicProvider: malformed and unknown input", () => {
  it("a data line that is not JSON ends with a clear invalid_stream error, content kept", async () => {
    const bytes = new Uint8Array([
      ...sse(
        messageStart,
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
      ),
      ...encoder.encode("event: content_block_delta\ndata: {oops\n\n"),
    ]);
    const run = await runScript([() => chunkedResponse([bytes])]);
    expect(run.calls).toHaveLength(1);
    expect(run.message).toMatchObject({
      stop_reason: "error",
      incomplete: true,
      content: [{ type: "text", text: "Hi" }],
      error: { type: "invalid_stream", retryable: false, message: expect.stringMatching(/not JSON: \{oops/) },
    });
  });

  it("unknown event and delta types are ignored; unknown blocks merge the deltas they get", async () => {
    const bytes = sse(
      messageStart,
      { type: "brand_new_event", x: 1 },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "A" } },
      { type: "content_block_delta", index: 0, delta: { type: "mystery_delta", blob: { a: 1 } } },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "citations_delta", citation: { cited_text: "c" } },
      },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "future_block", note: "n", count: 1 } },
      { type: "content_block_delta", index: 1, delta: { type: "note_delta", note: "+1", count: 2 } },
      { type: "content_block_delta", index: 1, delta: { type: "note_delta", note: "+2" } },
      { type: "content_block_stop", index: 1 },
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 9 },
      },
      { type: "message_stop" },
    );
    const run = await runScript([() => chunkedResponse([bytes])]);
    expect(run.message.content).toEqual([
      { type: "text", text: "A", meta: { citations: [{ cited_text: "c" }] } },
      { type: "unknown", provider: "anthropic", data: { type: "future_block", note: "n+1+2", count: 2 } },
    ]);
    expect(run.events).toContainEqual({ type: "block", id: "1", block: run.message.content[1] });
    expect(run.message.usage).toEqual({
      input_tokens: 5,
      output_tokens: 9,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it("maps stop reasons: stop_sequence kept in meta, pause_turn and refusal passed, unknown ones noted", async () => {
    const end = (delta: Record<string, unknown>) => () =>
      chunkedResponse([
        sse(messageStart, { type: "message_delta", delta, usage: {} }, { type: "message_stop" }),
      ]);
    const seq = await runScript([end({ stop_reason: "stop_sequence", stop_sequence: "</x>" })]);
    expect(seq.message).toMatchObject({ stop_reason: "stop_sequence", meta: { stop_sequence: "</x>" } });
    expect((await runScript([end({ stop_reason: "pause_turn" })])).message.stop_reason).toBe("pause_turn");
    expect((await runScript([end({ stop_reason: "refusal" })])).message.stop_reason).toBe("refusal");
    const window = await runScript([end({ stop_reason: "model_context_window_exceeded" })]);
    expect(window.message.stop_reason).toBe("max_tokens");
    const novel = await runScript([end({ stop_reason: "new_reason" })]);
    expect(novel.message).toMatchObject({ stop_reason: "end_turn", meta: { stop_reason: "new_reason" } });
  });

  it("a tool_use whose input is valid JSON but not an object is invalid", async () => {
    const bytes = sse(
      messageStart,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "X", input: {} },
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "[1, 2]" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } },
      { type: "message_stop" },
    );
    const run = await runScript([() => chunkedResponse([bytes])]);
    expect(run.message.content).toEqual([
      { type: "tool_use", id: "t", name: "X", input: {}, raw_input: "[1, 2]", input_status: "invalid" },
    ]);
  });
});

describe("createAnthropicProvider: abort", () => {
  it("an abort during the stream ends with aborted, incomplete, partial content kept", async () => {
    const bytes = wireBody("anthropic-tool-use-basic.sse");
    const cut = new TextDecoder().decode(bytes).indexOf("event: content_block_stop");
    const controller = new AbortController();
    let sent = false;
    // Delivers the first text deltas, then stalls like a slow model: only the abort can end it.
    const stalling = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent) return new Promise<void>(() => {});
            sent = true;
            c.enqueue(bytes.subarray(0, cut));
            return undefined;
          },
        }),
      );
    const run = await runScript([stalling], {}, controller.signal, (event) => {
      if (event.type === "text-delta") controller.abort();
    });
    expect(run.message).toMatchObject({
      stop_reason: "aborted",
      incomplete: true,
      content: [{ type: "text", text: "I'll check the current weather in Paris for you." }],
      id: "msg_019Q1hrJbZG26Fb9BQhrkHEr",
    });
    expect(run.message.error).toBeUndefined();
    expect(run.events.at(-2)).toEqual({
      type: "text-end",
      id: "0",
      text: "I'll check the current weather in Paris for you.",
    });
  });

  it("an abort during a tool input closes the tool_use as incomplete", async () => {
    const bytes = wireBody("anthropic-tool-use-basic.sse");
    const controller = new AbortController();
    // Small reads, so that the rest of the input is still to come when the abort lands.
    const run = await runScript(
      [() => chunkedResponse(splitBytes(bytes, 7, 8))],
      {},
      controller.signal,
      (event) => {
        if (event.type === "tool-input-delta" && event.delta.includes("locati")) controller.abort();
      },
    );
    expect(run.message.stop_reason).toBe("aborted");
    expect(run.message.content[1]).toEqual({
      type: "tool_use",
      id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
      input: {},
      raw_input: '{"locati',
      input_status: "incomplete",
    });
  });

  it("an abort during a backoff wait ends at once, without another request", async () => {
    const controller = new AbortController();
    const run = await runScript(
      [() => errorResponse(529, "overloaded_error"), ok],
      {
        sleep: (ms, signal) => {
          controller.abort();
          return realSleep(ms * 1000, signal);
        },
      },
      controller.signal,
    );
    expect(run.calls).toHaveLength(1);
    expect(run.events.map((e) => e.type)).toEqual(["retry", "message-end"]);
    expect(run.message).toEqual({ role: "assistant", content: [], stop_reason: "aborted", incomplete: true });
  });

  it("an abort before the call sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await runScript([ok], {}, controller.signal);
    expect(run.calls).toHaveLength(0);
    expect(run.message.stop_reason).toBe("aborted");
  });

  it("a fetch rejected by the abort ends as aborted, not as a network error", async () => {
    const controller = new AbortController();
    const run = await runScript(
      [
        (init) =>
          new Promise<Response>((_resolve, reject) => {
            init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
            controller.abort();
          }),
      ],
      {},
      controller.signal,
    );
    expect(run.calls).toHaveLength(1);
    expect(run.message.stop_reason).toBe("aborted");
  });

  it("a consumer that stops iterating early cancels the response body", async () => {
    let cancelled = false;
    const bytes = wireBody("anthropic-tool-use-basic.sse");
    const provider = createAnthropicProvider({
      apiKey: "k",
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(bytes.subarray(0, 900));
            },
            cancel() {
              cancelled = true;
            },
          }),
        ),
    });
    for await (const event of provider.stream(request)) if (event.type === "text-delta") break;
    expect(cancelled).toBe(true);
  });
});
