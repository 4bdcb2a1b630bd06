import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator } from "../server.js";
import type { SimTurn, Simulator, SimulatorOptions } from "../types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function client(options: SimulatorOptions): Promise<OpenAI> {
  sim = await startSimulator(options);
  return new OpenAI({ apiKey: "sk-test", baseURL: `${sim.url}/v1`, maxRetries: 2 });
}

const tools: OpenAI.Responses.Tool[] = [
  { type: "function", name: "get_capital", parameters: { type: "object", properties: {} }, strict: false },
];

const turn: SimTurn = {
  content: [
    { type: "thinking", thinking: "The user wants a capital.", signature: "enc-abc" },
    { type: "text", text: "I'll look up the capital." },
    { type: "tool_use", id: "call_1", name: "get_capital", input: { country: "France" } },
    { type: "tool_use", id: "call_2", name: "get_capital", input: { country: "Japan" } },
  ],
};

describe("the official OpenAI SDK against the simulator: Responses", () => {
  it("responses.create({stream: true}) yields the scripted events in order", async () => {
    const openai = await client({ script: [turn], textChunk: 5, inputChunk: 4 });
    const stream = await openai.responses.create({
      model: "gpt-sim",
      input: "Capitals of France and Japan?",
      tools,
      stream: true,
    });
    let text = "";
    let reasoning = "";
    const args = new Map<string, string>();
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.reasoning_summary_text.delta") reasoning += event.delta;
      if (event.type === "response.function_call_arguments.delta") {
        args.set(event.item_id, (args.get(event.item_id) ?? "") + event.delta);
      }
      if (event.type === "response.completed") final = event.response;
    }
    expect(text).toBe("I'll look up the capital.");
    expect(reasoning).toBe("The user wants a capital.");
    expect([...args.values()].map((a) => JSON.parse(a))).toEqual([
      { country: "France" },
      { country: "Japan" },
    ]);
    expect(final?.status).toBe("completed");
    const message = final?.output.find((item) => item.type === "message");
    expect(message?.content).toEqual([
      { type: "output_text", text: "I'll look up the capital.", annotations: [], logprobs: [] },
    ]);
    const calls = final?.output.filter((item) => item.type === "function_call");
    expect(calls?.map((c) => [c.call_id, c.name, c.arguments])).toEqual([
      ["call_1", "get_capital", '{"country":"France"}'],
      ["call_2", "get_capital", '{"country":"Japan"}'],
    ]);
  });

  it("responses.stream().finalResponse() assembles the same output", async () => {
    const openai = await client({ script: [turn], textChunk: 3, inputChunk: 3 });
    const response = await openai.responses.stream({ model: "gpt-sim", input: "go", tools }).finalResponse();
    expect(response.output_text).toBe("I'll look up the capital.");
    expect(response.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  it("responses.create() (non-streaming) returns the scripted output", async () => {
    const openai = await client({ script: [turn] });
    const response = await openai.responses.create({ model: "gpt-sim", input: "go", tools });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe("I'll look up the capital.");
    const reasoning = response.output[0];
    expect(reasoning?.type === "reasoning" && reasoning.encrypted_content).toBe("enc-abc");
  });

  it("a validation failure surfaces as BadRequestError", async () => {
    const openai = await client({ script: [turn] });
    const call = openai.responses.create({
      model: "gpt-sim",
      input: [
        { role: "user", content: "go" },
        { type: "function_call_output", call_id: "call_missing", output: "x" },
      ],
    });
    await expect(call).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(call).rejects.toThrow(
      "No tool call found for function call output with call_id call_missing.",
    );
  });

  it("a 429 is retried by the SDK and then served", async () => {
    const openai = await client({
      script: [
        {
          content: [{ type: "text", text: "served" }],
          fault: { kind: "http", status: 429, retryAfterMs: 5 },
        },
      ],
    });
    const response = await openai.responses.create({ model: "gpt-sim", input: "hi" });
    expect(response.output_text).toBe("served");
    expect(sim?.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("an error event mid-stream surfaces as an APIError", async () => {
    const openai = await client({
      script: [
        { content: [{ type: "text", text: "abcdef" }], fault: { kind: "error-event", afterEvents: 5 } },
      ],
      textChunk: 2,
    });
    const stream = await openai.responses.create({ model: "gpt-sim", input: "hi", stream: true });
    const types: string[] = [];
    const read = async () => {
      for await (const event of stream) types.push(event.type);
    };
    await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(types.at(-1)).toBe("response.output_text.delta");
  });
});

describe("the official OpenAI SDK and the Responses web_search tool", () => {
  it("responses.stream() gets the web_search_call item and the url_citation annotations", async () => {
    const openai = await client({
      script: [
        {
          content: [
            {
              type: "web_search",
              query: "node 22",
              results: [{ url: "https://nodejs.org/blog", title: "Node 22" }],
            },
            {
              type: "text",
              text: "April 2024.",
              citations: [{ url: "https://nodejs.org/blog", title: "Node 22" }],
            },
          ],
        },
      ],
    });
    const stream = openai.responses.stream({
      model: "gpt-sim",
      input: "When did Node 22 come out?",
      tools: [{ type: "web_search" }],
      include: ["web_search_call.action.sources"],
    });
    const annotations: unknown[] = [];
    stream.on("response.output_text.annotation.added", (event) => annotations.push(event.annotation));
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(["web_search_call", "message"]);
    expect(final.output[0]).toMatchObject({
      type: "web_search_call",
      status: "completed",
      action: {
        type: "search",
        query: "node 22",
        sources: [{ type: "url", url: "https://nodejs.org/blog" }],
      },
    });
    expect(final.output_text).toBe("April 2024.");
    const expected = {
      type: "url_citation",
      url: "https://nodejs.org/blog",
      title: "Node 22",
      start_index: 0,
      end_index: 11,
    };
    expect(annotations).toEqual([expected]);
    expect(final.output[1]).toMatchObject({ content: [{ annotations: [expected] }] });
  });
});
