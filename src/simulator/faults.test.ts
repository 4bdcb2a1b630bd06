import { afterEach, describe, expect, it } from "vitest";
import { rawPost } from "../../test/support/protocol-test-http.js";
import { messagesBody, postMessages, readJson, readSse } from "../../test/support/test-http.js";
import { startSimulator } from "./server.js";
import type { SimTurn, Simulator, SimulatorOptions } from "./types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions): Promise<Simulator> {
  sim = await startSimulator(options);
  return sim;
}

const streamBody = (overrides: Record<string, unknown> = {}) => messagesBody({ stream: true, ...overrides });
const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });

const ANTHROPIC_HEADERS = { "content-type": "application/json", "x-api-key": "k" };

describe("faults", () => {
  it("http: the next `times` requests get the error with retry headers, then the turn is served", async () => {
    const s = await start({
      script: [
        {
          ...text("after"),
          fault: { kind: "http", status: 529, times: 2, retryAfterSeconds: 3, retryAfterMs: 7 },
        },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const res = await postMessages(s.url, messagesBody());
      expect(res.status).toBe(529);
      expect(res.headers.get("retry-after")).toBe("3");
      expect(res.headers.get("retry-after-ms")).toBe("7");
      const body = await readJson(res);
      expect(body).toMatchObject({
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
      });
      expect(body.request_id).toMatch(/^req_/);
    }
    const ok = await postMessages(s.url, messagesBody());
    expect(ok.status).toBe(200);
    expect((await readJson(ok)).content).toEqual([{ type: "text", text: "after" }]);
    expect(s.requests.map((r) => [r.status, r.fault])).toEqual([
      [529, "http"],
      [529, "http"],
      [200, undefined],
    ]);
  });

  it("http: status maps to the real error type (500 api_error, 429 rate_limit_error)", async () => {
    const s = await start({
      script: [
        { ...text("x"), fault: { kind: "http", status: 500 } },
        { ...text("y"), fault: { kind: "http", status: 429 } },
      ],
    });
    expect((await readJson(await postMessages(s.url, messagesBody()))).error.type).toBe("api_error");
    await (await postMessages(s.url, messagesBody())).text();
    const limited = await postMessages(s.url, messagesBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeNull();
    expect((await readJson(limited)).error.type).toBe("rate_limit_error");
  });

  it("error-event: an error frame after N events, no message_delta/stop, and the turn is consumed", async () => {
    const s = await start({
      script: [
        {
          content: [{ type: "tool_use", name: "t", input: { location: "Paris" } }],
          fault: { kind: "error-event", afterEvents: 4 },
        },
        text("retried"),
      ],
      inputChunk: 5,
    });
    const events = await readSse(await postMessages(s.url, streamBody()));
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "error",
    ]);
    expect(events[4]?.data).toMatchObject({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    expect(s.requests[0]?.fault).toBe("error-event");
    const next = await readSse(await postMessages(s.url, streamBody()));
    expect(next.at(-1)?.event).toBe("message_stop");
  });

  it("error-event: custom error type; in non-streaming mode it is the matching HTTP error", async () => {
    const s = await start({
      script: [
        { ...text("a"), fault: { kind: "error-event", afterEvents: 0, errorType: "api_error" } },
        { ...text("b"), fault: { kind: "error-event", afterEvents: 0 } },
      ],
    });
    const events = await readSse(await postMessages(s.url, streamBody()));
    expect(events).toEqual([
      {
        event: "error",
        data: expect.objectContaining({ error: { type: "api_error", message: "Internal server error" } }),
      },
    ]);
    const res = await postMessages(s.url, messagesBody());
    expect(res.status).toBe(529);
    expect((await readJson(res)).error.type).toBe("overloaded_error");
  });

  it("disconnect: the socket is destroyed after exactly N body bytes (streaming)", async () => {
    const s = await start({
      script: [{ ...text("x".repeat(500)), fault: { kind: "disconnect", afterBytes: 300 } }],
    });
    const got = await rawPost(s.url, "/v1/messages", streamBody(), ANTHROPIC_HEADERS);
    expect(got).toEqual({ status: 200, bytes: 300, broken: true });
    expect(s.requests[0]?.fault).toBe("disconnect");
  });

  it("disconnect: a stream shorter than N bytes is dropped, unterminated, after its last byte", async () => {
    const s = await start({
      script: [{ ...text("short"), fault: { kind: "disconnect", afterBytes: 1_000_000 } }],
    });
    const got = await rawPost(s.url, "/v1/messages", streamBody(), ANTHROPIC_HEADERS);
    expect(got.broken).toBe(true);
    expect(got.bytes).toBeGreaterThan(0);
  });

  it("disconnect: a non-streaming body is cut too, and fetch sees the break", async () => {
    const s = await start({
      script: [{ ...text("y".repeat(500)), fault: { kind: "disconnect", afterBytes: 40 } }],
    });
    const res = await postMessages(s.url, messagesBody());
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it("max-tokens fault: a cut tool_use gets no content_block_stop; the text before it is closed", async () => {
    const input = { filename: "taxes.txt", lines: ["a", "b", "c"] };
    const s = await start({
      script: [
        {
          content: [
            { type: "text", text: "Writing." },
            { type: "tool_use", id: "toolu_cut", name: "make_file", input },
          ],
          fault: { kind: "max-tokens", afterChars: 8 + 20 },
        },
      ],
      inputChunk: 6,
    });
    const events = await readSse(await postMessages(s.url, streamBody()));
    const stops = events.filter((e) => e.event === "content_block_stop").map((e) => e.data.index);
    expect(stops).toEqual([0]);
    const partial = events
      .filter((e) => e.data.index === 1 && e.event === "content_block_delta")
      .map((e) => e.data.delta.partial_json)
      .join("");
    expect(partial).toBe(JSON.stringify(input).slice(0, 20));
    const delta = events.find((e) => e.event === "message_delta")?.data;
    expect(delta.delta.stop_reason).toBe("max_tokens");
    expect(delta.usage.output_tokens).toBe(Math.ceil(28 / 4));
    expect(events.at(-1)?.event).toBe("message_stop");
  });

  it("the request's max_tokens cuts the turn; the same turn at double max_tokens is whole", async () => {
    const turn = text("0123456789".repeat(6)); // 60 chars = 15 tokens at 4 chars/token
    const s = await start({ script: [turn, turn, turn] });
    const cut = await readSse(await postMessages(s.url, streamBody({ max_tokens: 10 })));
    const joined = (events: typeof cut) =>
      events
        .filter((e) => e.event === "content_block_delta")
        .map((e) => e.data.delta.text)
        .join("");
    expect(joined(cut)).toBe("0123456789".repeat(4));
    expect(cut.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("max_tokens");
    expect(cut.filter((e) => e.event === "content_block_stop")).toHaveLength(1);
    const whole = await readSse(await postMessages(s.url, streamBody({ max_tokens: 20 })));
    expect(joined(whole)).toBe("0123456789".repeat(6));
    expect(whole.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("end_turn");
    // Non-streaming respects max_tokens as well.
    const json = await readJson(await postMessages(s.url, messagesBody({ max_tokens: 5 })));
    expect(json.content).toEqual([{ type: "text", text: "01234567890123456789" }]);
    expect(json.stop_reason).toBe("max_tokens");
    expect(json.usage.output_tokens).toBe(5);
  });

  it("non-streaming: a tool_use cut by max_tokens keeps id and name with input {}", async () => {
    const s = await start({
      script: [
        { content: [{ type: "tool_use", id: "toolu_a", name: "w", input: { long: "z".repeat(100) } }] },
      ],
    });
    const json = await readJson(await postMessages(s.url, messagesBody({ max_tokens: 3 })));
    expect(json.content).toEqual([{ type: "tool_use", id: "toolu_a", name: "w", input: {} }]);
    expect(json.stop_reason).toBe("max_tokens");
  });

  it("a block that would start exactly at the limit is not started", async () => {
    const s = await start({
      script: [
        {
          content: [
            { type: "text", text: "abcd" },
            { type: "tool_use", name: "t", input: {} },
          ],
        },
      ],
    });
    const events = await readSse(await postMessages(s.url, streamBody({ max_tokens: 1 })));
    expect(events.filter((e) => e.event === "content_block_start")).toHaveLength(1);
    expect(events.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("max_tokens");
  });
});
