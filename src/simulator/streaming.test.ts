import { afterEach, describe, expect, it } from "vitest";
import { API_HEADERS, messagesBody, postMessages, readJson, readSse } from "../../test/support/test-http.js";
import { startSimulator } from "./server.js";
import type { LoggedRequest, Simulator, SimulatorOptions } from "./types.js";

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

describe("Anthropic SSE stream", () => {
  it("frames a text turn exactly as the API does", async () => {
    const s = await start({
      script: [{ content: [{ type: "text", text: "Hello, simulated world!" }] }],
      textChunk: 10,
    });
    const res = await postMessages(s.url, streamBody({ model: "claude-x" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("request-id")).toMatch(/^req_011/);
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    const start0 = events[0]?.data.message;
    expect(start0).toMatchObject({ type: "message", role: "assistant", model: "claude-x", content: [] });
    expect(start0.id).toMatch(/^msg_01/);
    expect(Object.keys(start0.usage)).toEqual(
      expect.arrayContaining([
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
      ]),
    );
    expect(events[1]?.data).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    expect(events.slice(3, 6).map((e) => e.data.delta.text)).toEqual(["Hello, sim", "ulated wor", "ld!"]);
    const delta = events[7]?.data;
    expect(delta.delta).toEqual({ stop_reason: "end_turn", stop_sequence: null });
    expect(delta.usage.output_tokens).toBe(Math.ceil("Hello, simulated world!".length / 4));
    expect(delta.usage.input_tokens).toBe(start0.usage.input_tokens);
  });

  it("streams thinking with its signature and redacted_thinking with data in the start event", async () => {
    const s = await start({
      script: [
        {
          content: [
            { type: "redacted_thinking", data: "EqkECkYI" },
            { type: "thinking", thinking: "step one, step two", signature: "sig==" },
            { type: "text", text: "done" },
          ],
        },
      ],
      textChunk: 8,
    });
    const events = await readSse(await postMessages(s.url, streamBody()));
    const forBlock = (i: number) => events.filter((e) => e.data.index === i);
    expect(forBlock(0).map((e) => e.event)).toEqual(["content_block_start", "content_block_stop"]);
    expect(forBlock(0)[0]?.data.content_block).toEqual({ type: "redacted_thinking", data: "EqkECkYI" });
    expect(forBlock(1)[0]?.data.content_block).toEqual({ type: "thinking", thinking: "", signature: "" });
    const deltas = forBlock(1)
      .filter((e) => e.event === "content_block_delta")
      .map((e) => e.data.delta);
    expect(deltas.filter((d) => d.type === "thinking_delta").map((d) => d.thinking)).toEqual([
      "step one",
      ", step t",
      "wo",
    ]);
    expect(deltas.at(-1)).toEqual({ type: "signature_delta", signature: "sig==" });
    expect(events[2]?.event).toBe("ping");
  });

  it("streams tool input as input_json_delta fragments that concatenate to JSON.stringify(input)", async () => {
    const input = { path: "src/a.ts", lines: ["x", "y"], note: "ünïcødé" };
    const s = await start({
      script: [{ content: [{ type: "tool_use", name: "write", input }] }],
      inputChunk: 7,
    });
    const events = await readSse(await postMessages(s.url, streamBody()));
    const start0 = events.find((e) => e.event === "content_block_start")?.data.content_block;
    expect(start0).toMatchObject({ type: "tool_use", name: "write", input: {} });
    expect(start0.id).toMatch(/^toolu_01/);
    const fragments = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => e.data.delta.partial_json);
    expect(fragments[0]).toBe("");
    expect(fragments.slice(1).every((f: string) => [...f].length <= 7)).toBe(true);
    expect(fragments.join("")).toBe(JSON.stringify(input));
    expect(events.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("tool_use");
  });

  it("never splits a surrogate pair across deltas", async () => {
    const text = "😀😀😀😀😀";
    const s = await start({ script: [{ content: [{ type: "text", text }] }], textChunk: 2 });
    const events = await readSse(await postMessages(s.url, streamBody()));
    const pieces = events.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta.text);
    expect(pieces).toEqual(["😀😀", "😀😀", "😀"]);
  });

  it("uses the scripted stop reason, and echoes the first stop sequence", async () => {
    const s = await start({
      script: [
        { content: [{ type: "text", text: "a" }], stopReason: "stop_sequence" },
        { content: [{ type: "text", text: "b" }], stopReason: "refusal" },
      ],
    });
    const first = await readSse(await postMessages(s.url, streamBody({ stop_sequences: ["END", "STOP"] })));
    expect(first.find((e) => e.event === "message_delta")?.data.delta).toEqual({
      stop_reason: "stop_sequence",
      stop_sequence: "END",
    });
    const second = await readSse(await postMessages(s.url, streamBody()));
    expect(second.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("refusal");
  });

  it("serves function entries with the logged request, and entries enqueued later", async () => {
    const seen: LoggedRequest[] = [];
    const s = await start({
      script: [
        (request) => {
          seen.push(request);
          return { content: [{ type: "text", text: `you said ${request.body.messages[0].content}` }] };
        },
      ],
    });
    s.enqueue({ content: [{ type: "text", text: "second" }] });
    const a = await readJson(
      await postMessages(s.url, messagesBody({ messages: [{ role: "user", content: "ping" }] })),
    );
    const b = await readJson(await postMessages(s.url, messagesBody()));
    expect(a.content).toEqual([{ type: "text", text: "you said ping" }]);
    expect(b.content).toEqual([{ type: "text", text: "second" }]);
    expect(seen[0]?.headers["x-api-key"]).toBe("sk-test");
    expect(seen[0]?.path).toBe("/v1/messages");
  });

  it("answers an exhausted script with a 500 api_error naming the turn count, and logs it", async () => {
    const s = await start({ script: [{ content: [{ type: "text", text: "only" }] }] });
    await (await postMessages(s.url, messagesBody())).text();
    const res = await postMessages(s.url, messagesBody());
    expect(res.status).toBe(500);
    const body = await readJson(res);
    expect(body).toMatchObject({
      type: "error",
      error: { type: "api_error", message: "simulator script exhausted after 1 turns" },
    });
    expect(body.request_id).toMatch(/^req_011/);
    expect(s.requests[1]).toMatchObject({ status: 500, error: "simulator script exhausted after 1 turns" });
  });

  it("answers an unknown path with 404 in the API's error shape", async () => {
    const s = await start({});
    const res = await fetch(`${s.url}/v1/nothing?x=1`, { method: "POST", headers: API_HEADERS, body: "{}" });
    expect(res.status).toBe(404);
    expect(await readJson(res)).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect(s.requests[0]).toMatchObject({ path: "/v1/nothing", status: 404, method: "POST" });
  });

  it("rejects a script turn whose block is malformed, without consuming it", async () => {
    const s = await start({
      script: [{ content: [{ type: "tool_use", name: "t", input: undefined }] }],
    });
    const res = await postMessages(s.url, messagesBody());
    expect(res.status).toBe(500);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect((await readJson(res)).error.message).toMatch(/simulator script error: .*not JSON-serialisable/);
  });
});
