import { describe, expect, it } from "vitest";
import { createGeminiProvider } from "../gemini/gemini-provider.js";
import { createOpenAIChatProvider } from "../openai-chat/openai-chat-provider.js";
import { createOpenAIResponsesProvider } from "../openai-responses/openai-responses-provider.js";
import { mergeHeaders } from "./merge-headers.js";

const request = { model: "m", system: [], tools: [], messages: [], maxTokens: 10 };

describe("mergeHeaders", () => {
  it("lets a caller's header replace a default whatever its case", () => {
    expect(
      mergeHeaders({ authorization: "Bearer a" }, { Authorization: "Bearer b", "X-Extra": "1" }),
    ).toEqual({
      authorization: "Bearer b",
      "x-extra": "1",
    });
  });

  it("a capitalised Authorization from the caller is sent once, by every adapter", async () => {
    const sent: Array<Record<string, string>> = [];
    const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push(Object.fromEntries(new Headers(init?.headers).entries()));
      return new Response("{}", { status: 400 });
    };
    const headers = { Authorization: "Bearer proxy-token" };
    const providers = [
      createOpenAIChatProvider({
        apiKey: "k",
        headers,
        fetch: fetch as typeof globalThis.fetch,
        retry: { maxRetries: 0 },
      }),
      createOpenAIResponsesProvider({
        apiKey: "k",
        headers,
        fetch: fetch as typeof globalThis.fetch,
        retry: { maxRetries: 0 },
      }),
      createGeminiProvider({
        apiKey: "k",
        headers,
        fetch: fetch as typeof globalThis.fetch,
        retry: { maxRetries: 0 },
      }),
    ];
    for (const provider of providers) for await (const _ of provider.stream(request)) void _;
    expect(sent).toHaveLength(3);
    for (const h of sent) expect(h.authorization).toBe("Bearer proxy-token");
  });
});
