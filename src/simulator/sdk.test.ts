import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator } from "./server.js";
import type { Simulator, SimulatorOptions } from "./types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function client(options: SimulatorOptions): Promise<Anthropic> {
  sim = await startSimulator(options);
  return new Anthropic({ apiKey: "sk-test", baseURL: sim.url, maxRetries: 2 });
}

const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
};

const turn = {
  content: [
    { type: "thinking" as const, thinking: "The user wants the weather in Paris.", signature: "sig-abc" },
    { type: "text" as const, text: "Let me check the weather in Paris for you." },
    { type: "tool_use" as const, id: "toolu_1", name: "get_weather", input: { city: "Paris", days: [1, 2] } },
  ],
};

describe("the official Anthropic SDK against the simulator", () => {
  it("messages.create (non-streaming) returns the scripted message", async () => {
    const anthropic = await client({ script: [turn] });
    const message = await anthropic.messages.create({
      model: "claude-sim",
      max_tokens: 1000,
      tools: [weatherTool],
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    expect(message.model).toBe("claude-sim");
    expect(message.id).toMatch(/^msg_01/);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user wants the weather in Paris.", signature: "sig-abc" },
      { type: "text", text: "Let me check the weather in Paris for you." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris", days: [1, 2] } },
    ]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(sim?.requests).toHaveLength(1);
    expect(sim?.requests[0]?.status).toBe(200);
  });

  it("messages.stream().finalMessage() assembles the scripted message from small deltas", async () => {
    const anthropic = await client({ script: [turn], textChunk: 3, inputChunk: 5 });
    const stream = anthropic.messages.stream({
      model: "claude-sim",
      max_tokens: 1000,
      tools: [weatherTool],
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    const texts: string[] = [];
    stream.on("text", (t) => texts.push(t));
    const message = await stream.finalMessage();
    expect(texts.length).toBeGreaterThan(5);
    expect(texts.join("")).toBe("Let me check the weather in Paris for you.");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user wants the weather in Paris.", signature: "sig-abc" },
      { type: "text", text: "Let me check the weather in Paris for you." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris", days: [1, 2] } },
    ]);
  });

  it("a validation failure surfaces as BadRequestError with the API's message", async () => {
    const anthropic = await client({ script: [turn] });
    const call = anthropic.messages.create({
      model: "claude-sim",
      max_tokens: 100,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_x", name: "get_weather", input: {} }] },
        { role: "user", content: "no result here" },
      ],
    });
    await expect(call).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(call).rejects.toThrow(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x.",
    );
    expect(sim?.requests).toHaveLength(1);
    expect(sim?.requests[0]?.status).toBe(400);
    expect(sim?.requests[0]?.error).toMatch(/^messages\.1: `tool_use` ids/);
  });

  it("a 429 with retry-after is retried by the SDK and then served", async () => {
    const anthropic = await client({
      script: [
        {
          content: [{ type: "text", text: "served" }],
          fault: { kind: "http", status: 429, retryAfterSeconds: 1, retryAfterMs: 5 },
        },
      ],
    });
    const message = await anthropic.messages.create({
      model: "claude-sim",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content).toEqual([{ type: "text", text: "served" }]);
    expect(sim?.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(sim?.requests[0]?.error).toMatch(/rate limit/);
  });

  it("an exhausted script is a 500 api_error the SDK does not retry", async () => {
    const anthropic = await client({ script: [] });
    const call = anthropic.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
    });
    await expect(call).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    await expect(call).rejects.toThrow("simulator script exhausted after 0 turns");
    expect(sim?.requests).toHaveLength(1);
  });
});

describe("the official Anthropic SDK and the web search server tool", () => {
  const search = {
    content: [
      {
        type: "web_search" as const,
        query: "node 22 release",
        results: [{ url: "https://nodejs.org/blog", title: "Node 22", pageAge: "1 year ago" }],
      },
      {
        type: "text" as const,
        text: "Node 22 came out in April 2024.",
        citations: [{ url: "https://nodejs.org/blog", title: "Node 22", citedText: "April 2024" }],
      },
    ],
  };

  it("assembles server_tool_use, web_search_tool_result and cited text from the stream, as from the JSON", async () => {
    const anthropic = await client({ script: [search, search], textChunk: 4, inputChunk: 5 });
    const request = {
      model: "claude-sim",
      max_tokens: 1000,
      tools: [{ type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 3 }],
      messages: [{ role: "user" as const, content: "When did Node 22 come out?" }],
    };
    const streamed = await anthropic.messages.stream(request).finalMessage();
    const whole = await anthropic.messages.create(request);
    for (const message of [streamed, whole]) {
      expect(message.content.map((block) => block.type)).toEqual([
        "server_tool_use",
        "web_search_tool_result",
        "text",
      ]);
      expect(message.content[0]).toMatchObject({ name: "web_search", input: { query: "node 22 release" } });
      expect(message.content[0]).toMatchObject({ id: expect.stringMatching(/^srvtoolu_/) });
      expect(message.content[1]).toMatchObject({
        tool_use_id: (message.content[0] as { id: string }).id,
        content: [
          {
            type: "web_search_result",
            url: "https://nodejs.org/blog",
            title: "Node 22",
            page_age: "1 year ago",
          },
        ],
      });
      expect(message.content[2]).toMatchObject({
        type: "text",
        text: "Node 22 came out in April 2024.",
        citations: [
          { type: "web_search_result_location", url: "https://nodejs.org/blog", cited_text: "April 2024" },
        ],
      });
    }
    expect(streamed.usage).toMatchObject({ server_tool_use: { web_search_requests: 1 } });
  });

  it("rejects a web search tool with both domain lists, as the API does", async () => {
    const anthropic = await client({ script: [search] });
    await expect(
      anthropic.messages.create({
        model: "claude-sim",
        max_tokens: 100,
        tools: [
          {
            type: "web_search_20250305",
            name: "web_search",
            allowed_domains: ["a.com"],
            blocked_domains: ["b.com"],
          },
        ],
        messages: [{ role: "user", content: "hi" }],
      }),
    ).rejects.toThrow(/Cannot specify both allowed_domains and blocked_domains/);
  });
});
