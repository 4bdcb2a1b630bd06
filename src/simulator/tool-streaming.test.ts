import { afterEach, describe, expect, it } from "vitest";
import { API_HEADERS, messagesBody, postMessages, readJson, readSse } from "../../test/support/test-http.js";
import { startSimulator } from "./server.js";
import type { SimBlock, Simulator } from "./types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const schema = { type: "object" };
const bigInput = { content: "line of text\n".repeat(8) };

/**
 * Runs one streamed tool call and returns one timeline of what the client received and when the server
 * finished generating the block (the SimMark), in the order they happened.
 */
async function timeline(tool: Record<string, unknown>, headers: Record<string, string> = API_HEADERS) {
  const order: string[] = [];
  const block: SimBlock = { type: "tool_use", name: "write", input: bigInput };
  sim = await startSimulator({
    script: [{ content: [block] }],
    inputChunk: 8,
    delayMs: 5,
    onMark: (mark) => order.push(`generated:${mark.block}`),
  });
  const res = await postMessages(sim.url, messagesBody({ stream: true, tools: [tool] }), headers);
  const events = await readSse(res, (e) => {
    if (e.event === "content_block_delta" && e.data.delta.partial_json !== "") order.push("delta");
  });
  const json = events
    .filter((e) => e.event === "content_block_delta")
    .map((e) => e.data.delta.partial_json)
    .join("");
  return { order, json };
}

describe("tool input release", () => {
  it("eager (eager_input_streaming: true): the first fragment arrives before generation ends", async () => {
    const { order, json } = await timeline({
      name: "write",
      input_schema: schema,
      eager_input_streaming: true,
    });
    expect(order.indexOf("delta")).toBeLessThan(order.indexOf("generated:0"));
    expect(JSON.parse(json)).toEqual(bigInput);
  });

  it("buffered (the default): no fragment arrives until generation ends, then all of them", async () => {
    const { order, json } = await timeline({ name: "write", input_schema: schema });
    expect(order[0]).toBe("generated:0");
    expect(order.filter((o) => o === "delta").length).toBe(Math.ceil(JSON.stringify(bigInput).length / 8));
    expect(JSON.parse(json)).toEqual(bigInput);
  });

  it("the fine-grained beta header makes tools eager", async () => {
    const headers = {
      ...API_HEADERS,
      "anthropic-beta": "other-beta, fine-grained-tool-streaming-2025-05-14",
    };
    const { order } = await timeline({ name: "write", input_schema: schema }, headers);
    expect(order.indexOf("delta")).toBeLessThan(order.indexOf("generated:0"));
  });

  it("a tool that says eager_input_streaming: false stays buffered under the beta header", async () => {
    const headers = { ...API_HEADERS, "anthropic-beta": "fine-grained-tool-streaming-2025-05-14" };
    const { order } = await timeline(
      { name: "write", input_schema: schema, eager_input_streaming: false },
      headers,
    );
    expect(order[0]).toBe("generated:0");
  });
});

describe("rawInput", () => {
  const tools = (eager: boolean) => [{ name: "t", input_schema: schema, eager_input_streaming: eager }];
  const raw = '{"location": "Paris", "unit": celsius}';

  it("an eager tool streams invalid JSON exactly as scripted", async () => {
    sim = await startSimulator({ script: [{ content: [{ type: "tool_use", name: "t", rawInput: raw }] }] });
    const events = await readSse(
      await postMessages(sim.url, messagesBody({ stream: true, tools: tools(true) })),
    );
    const json = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => e.data.delta.partial_json)
      .join("");
    expect(json).toBe(raw);
    expect(events.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("tool_use");
  });

  it("a buffered tool with invalid rawInput is a loud script error, and the turn stays queued", async () => {
    sim = await startSimulator({ script: [{ content: [{ type: "tool_use", name: "t", rawInput: raw }] }] });
    const res = await postMessages(sim.url, messagesBody({ stream: true, tools: tools(false) }));
    expect(res.status).toBe(500);
    expect(res.headers.get("x-should-retry")).toBe("false");
    const message: string = (await readJson(res)).error.message;
    expect(message).toMatch(
      /simulator script error: .*"t" has a rawInput that is not a JSON object.*buffered/,
    );
    expect(sim.requests[0]?.error).toBe(message);
    // Still queued: the eager request gets it.
    const ok = await postMessages(sim.url, messagesBody({ stream: true, tools: tools(true) }));
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it("non-streaming cannot carry invalid JSON input: script error", async () => {
    sim = await startSimulator({ script: [{ content: [{ type: "tool_use", name: "t", rawInput: raw }] }] });
    const res = await postMessages(sim.url, messagesBody({ tools: tools(true) }));
    expect(res.status).toBe(500);
    expect((await readJson(res)).error.message).toMatch(/non-streaming response cannot carry/);
  });

  it('an empty rawInput (the no-arguments wire shape) streams only "" and is {} without streaming', async () => {
    const turn = { content: [{ type: "tool_use" as const, id: "toolu_n", name: "t", rawInput: "" }] };
    sim = await startSimulator({ script: [turn, turn] });
    const events = await readSse(
      await postMessages(sim.url, messagesBody({ stream: true, tools: tools(false) })),
    );
    const deltas = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => e.data.delta.partial_json);
    expect(deltas).toEqual([""]);
    const json = await readJson(await postMessages(sim.url, messagesBody({ tools: tools(false) })));
    expect(json.content).toEqual([{ type: "tool_use", id: "toolu_n", name: "t", input: {} }]);
  });
});
