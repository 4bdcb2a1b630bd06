import { GoogleGenAI } from "@google/genai";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator } from "../server.js";
import type { SimTurn, Simulator, SimulatorOptions } from "../types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function client(options: SimulatorOptions): Promise<GoogleGenAI> {
  sim = await startSimulator(options);
  return new GoogleGenAI({ apiKey: "gk-test", httpOptions: { baseUrl: sim.url } });
}

const turn: SimTurn = {
  content: [
    { type: "thinking", thinking: "Weather in two cities.", signature: "c2lnbmF0dXJl" },
    { type: "text", text: "Let me look up both cities." },
    { type: "tool_use", name: "get_weather", input: { city: "Paris" } },
    { type: "tool_use", name: "get_weather", input: { city: "Tokyo", days: [1, 2] } },
  ],
};

const config = {
  tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather for a city" }] }],
};

describe("the official @google/genai SDK against the simulator", () => {
  it("models.generateContentStream yields the scripted text and functionCalls", async () => {
    const ai = await client({ script: [turn], textChunk: 5 });
    const stream = await ai.models.generateContentStream({
      model: "gemini-sim",
      contents: "Weather in Paris and Tokyo?",
      config,
    });
    let text = "";
    let thoughts = "";
    const calls: unknown[] = [];
    let finish: string | undefined;
    for await (const chunk of stream) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
        if (part.thought) thoughts += part.text ?? "";
        else text += part.text ?? "";
      }
      calls.push(...(chunk.functionCalls ?? []).map((c) => ({ name: c.name, args: c.args })));
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
    expect(text).toBe("Let me look up both cities.");
    expect(thoughts).toBe("Weather in two cities.");
    expect(calls).toEqual([
      { name: "get_weather", args: { city: "Paris" } },
      { name: "get_weather", args: { city: "Tokyo", days: [1, 2] } },
    ]);
    expect(finish).toBe("STOP");
    expect(sim?.requests[0]?.headers["x-goog-api-key"]).toBe("gk-test");
  });

  it("models.generateContent returns the scripted text and functionCalls", async () => {
    const ai = await client({ script: [turn] });
    const response = await ai.models.generateContent({ model: "gemini-sim", contents: "go", config });
    expect(response.functionCalls?.map((c) => [c.name, c.args])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Tokyo", days: [1, 2] }],
    ]);
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    expect(parts.find((p) => p.functionCall)?.thoughtSignature).toBe("c2lnbmF0dXJl");
    expect(parts.filter((p) => !p.thought && p.text).map((p) => p.text)).toEqual([
      "Let me look up both cities.",
    ]);
    expect(response.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
  });

  it("a validation failure and an error chunk mid-stream surface as the SDK's ApiError", async () => {
    const ai = await client({
      script: [
        { content: [{ type: "text", text: "abcdef" }], fault: { kind: "error-event", afterEvents: 1 } },
      ],
      textChunk: 2,
    });
    const invalid = ai.models.generateContent({
      model: "gemini-sim",
      contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] }],
    });
    await expect(invalid).rejects.toMatchObject({ status: 400 });
    await expect(invalid).rejects.toThrow(
      "function response turn comes immediately after a function call turn",
    );
    const stream = await ai.models.generateContentStream({ model: "gemini-sim", contents: "hi" });
    const texts: string[] = [];
    const read = async () => {
      for await (const chunk of stream) texts.push(chunk.text ?? "");
    };
    await expect(read()).rejects.toMatchObject({ name: "ApiError", status: 503 });
    expect(texts).toEqual(["ab"]);
  });
});

describe("the official @google/genai SDK and grounding with Google Search", () => {
  it("generateContent gets the grounding metadata: queries, pages and the text each supports", async () => {
    const ai = await client({
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
    const response = await ai.models.generateContent({
      model: "gemini-sim",
      contents: "When did Node 22 come out?",
      config: { tools: [{ googleSearch: {} }] },
    });
    expect(response.text).toBe("April 2024.");
    expect(response.candidates?.[0]?.groundingMetadata).toEqual({
      webSearchQueries: ["node 22"],
      groundingChunks: [{ web: { uri: "https://nodejs.org/blog", title: "Node 22" } }],
      groundingSupports: [
        { segment: { startIndex: 0, endIndex: 11, text: "April 2024." }, groundingChunkIndices: [0] },
      ],
    });
  });
});
