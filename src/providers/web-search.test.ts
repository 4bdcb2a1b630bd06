import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SimTurn, type Simulator, startSimulator } from "../simulator/index.js";
import { createAnthropicProvider } from "./anthropic/anthropic-provider.js";
import { createGeminiProvider } from "./gemini/gemini-provider.js";
import { createOpenAIChatProvider } from "./openai-chat/openai-chat-provider.js";
import { createOpenAIResponsesProvider } from "./openai-responses/openai-responses-provider.js";
import type { Provider } from "./provider.js";
import { hasWebSearch, webSearch } from "./web-search.js";

let sim: Simulator;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(() => sim.close());

const SEARCH: SimTurn = {
  content: [
    {
      type: "web_search",
      query: "node 22 release date",
      results: [
        { url: "https://nodejs.org/en/blog/release/v22.0.0", title: "Node.js 22 is now available" },
        { url: "https://example.com/other", title: "Other page" },
      ],
    },
    {
      type: "text",
      text: "Node.js 22 was released on 24 April 2024.",
      citations: [
        { url: "https://nodejs.org/en/blog/release/v22.0.0", title: "Node.js 22 is now available" },
      ],
    },
  ],
};

const providers: Array<[string, () => Provider]> = [
  ["anthropic", () => createAnthropicProvider({ apiKey: "k", baseURL: sim.url, retry: { maxRetries: 0 } })],
  ["openai-responses", () => createOpenAIResponsesProvider({ apiKey: "k", baseURL: `${sim.url}/v1` })],
  ["gemini", () => createGeminiProvider({ apiKey: "k", baseURL: sim.url })],
];

describe("webSearch through the provider's own search tool, over the wire", () => {
  it.each(providers)("%s: answer, sources and queries come back", async (_name, make) => {
    sim.enqueue(SEARCH);
    const provider = make();
    expect(hasWebSearch(provider)).toBe(true);
    const result = await webSearch({ provider, model: "m", query: "When was Node 22 released?" });
    expect(result.text).toBe("Node.js 22 was released on 24 April 2024.");
    expect(result.sources[0]).toEqual({
      url: "https://nodejs.org/en/blog/release/v22.0.0",
      title: "Node.js 22 is now available",
    });
    expect(result.sources.map((s) => s.url)).toContain("https://example.com/other");
    expect(result.queries).toEqual(["node 22 release date"]);
    expect(sim.requests.at(-1)?.status).toBe(200);
  });

  it("sends each wire's own search tool", async () => {
    sim.enqueue(SEARCH, SEARCH, SEARCH);
    for (const [, make] of providers) {
      await webSearch({ provider: make(), model: "m", query: "q", allowedDomains: ["nodejs.org"] });
    }
    const tools = sim.requests.map((request) => request.body.tools);
    expect(tools[0]).toEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 5, allowed_domains: ["nodejs.org"] },
    ]);
    expect(tools[1]).toEqual([{ type: "web_search", filters: { allowed_domains: ["nodejs.org"] } }]);
    expect(tools[2]).toEqual([{ googleSearch: {} }]);
  });

  it("reports a failed Anthropic search", async () => {
    sim.enqueue({ content: [{ type: "web_search", query: "q", errorCode: "max_uses_exceeded" }] });
    const provider = providers[0]![1]();
    const result = await webSearch({ provider, model: "m", query: "q" });
    expect(result.text).toBe("The search failed: max_uses_exceeded.");
  });

  it("OpenAI Chat Completions has no server-side search", () => {
    expect(hasWebSearch(createOpenAIChatProvider({ apiKey: "k", baseURL: `${sim.url}/v1` }))).toBe(false);
  });

  it("the simulator refuses a scripted search that the request did not offer", async () => {
    sim.enqueue(SEARCH);
    const provider = createAnthropicProvider({ apiKey: "k", baseURL: sim.url, retry: { maxRetries: 0 } });
    let end: unknown;
    for await (const event of provider.stream({
      model: "m",
      system: [],
      tools: [],
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      maxTokens: 100,
    })) {
      if (event.type === "message-end") end = event.message;
    }
    expect(JSON.stringify(end)).toContain("offered no web search tool");
  });
});
