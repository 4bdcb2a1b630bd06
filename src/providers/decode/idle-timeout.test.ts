import { describe, expect, it } from "vitest";
import { chunkedResponse } from "../../../test/fixtures.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { createAnthropicProvider } from "../anthropic/anthropic-provider.js";

const encoder = new TextEncoder();
const sse = (type: string, data: object) =>
  encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
const BODY = [
  sse("message_start", {
    message: { id: "m", model: "claude-test", usage: { input_tokens: 1, output_tokens: 0 } },
  }),
  sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello" } }),
  sse("content_block_stop", { index: 0 }),
  sse("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }),
  sse("message_stop", {}),
];
const request = { model: "claude-test", system: [], tools: [], messages: [], maxTokens: 64 };

describe("the idle watch", () => {
  it("counts only the server's silence: a consumer slower than the timeout loses nothing", async () => {
    const provider = createAnthropicProvider({
      apiKey: "k",
      fetch: async () => chunkedResponse(BODY),
      idleTimeoutMs: 60,
      stallWarningMs: 20,
    });
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(request)) {
      events.push(event);
      // The consumer takes its time between events (a UI busy rendering): that is not the server stalling.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(events.filter((e) => e.type === "stream-stalled" || e.type === "retry")).toEqual([]);
    const end = events.at(-1);
    expect(end?.type === "message-end" && end.message.stop_reason).toBe("end_turn");
  });

  it("0 turns the timeout off (a body that never ends is ended only by the caller's abort)", async () => {
    const controller = new AbortController();
    const provider = createAnthropicProvider({
      apiKey: "k",
      fetch: async () =>
        new Response(new ReadableStream({ start: (c) => c.enqueue(BODY[0]!) }), { status: 200 }),
      idleTimeoutMs: 0,
      stallWarningMs: 30,
    });
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(request, { signal: controller.signal })) {
      events.push(event);
      if (events.filter((e) => e.type === "stream-stalled").length === 3) controller.abort();
    }
    const stalls = events.filter((e) => e.type === "stream-stalled");
    expect(stalls.map((e) => e.type === "stream-stalled" && e.timeoutMs)).toEqual([0, 0, 0]);
    const silent = stalls.map((e) => (e.type === "stream-stalled" ? e.silentMs : 0));
    expect(silent[1]!).toBeGreaterThan(silent[0]!);
    const end = events.at(-1);
    expect(end?.type === "message-end" && end.message.stop_reason).toBe("aborted");
  });

  it("a server that never sends its response headers is also dropped at the idle timeout and retried", async () => {
    let calls = 0;
    const provider = createAnthropicProvider({
      apiKey: "k",
      // As fetch does: pending until the headers come, rejected when the request's signal aborts.
      fetch: async (_url, init) => {
        calls++;
        if (calls > 1) return chunkedResponse(BODY);
        return new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        });
      },
      sleep: async () => {},
      idleTimeoutMs: 150,
      stallWarningMs: 50,
    });
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(request)) events.push(event);
    expect(events.filter((e) => e.type === "stream-stalled").length).toBeGreaterThanOrEqual(2);
    const retry = events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && retry.reason).toMatch(/sent no response for 0\.\d s \(idle timeout\)/);
    const end = events.at(-1);
    expect(end?.type === "message-end" && end.message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(calls).toBe(2);
  });

  it("the caller's abort while waiting for headers is an abort, not a timeout", async () => {
    const controller = new AbortController();
    const provider = createAnthropicProvider({
      apiKey: "k",
      fetch: async (_url, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
      idleTimeoutMs: 10_000,
      stallWarningMs: 20,
    });
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(request, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "stream-stalled") controller.abort();
    }
    const end = events.at(-1);
    expect(end?.type === "message-end" && end.message.stop_reason).toBe("aborted");
    expect(events.some((e) => e.type === "retry")).toBe(false);
  });
});
