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

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
];

const turn: SimTurn = {
  content: [
    { type: "text", text: "Let me check the weather and the time." },
    { type: "tool_use", id: "call_w", name: "get_weather", input: { city: "Paris", days: [1, 2] } },
    { type: "tool_use", id: "call_t", name: "get_time", input: { zone: "CET" } },
  ],
};

describe("the official OpenAI SDK against the simulator: Chat Completions", () => {
  it("chat.completions.create({stream: true}) assembles content and parallel tool calls", async () => {
    const openai = await client({ script: [turn], textChunk: 4, inputChunk: 5 });
    const stream = await openai.chat.completions.create({
      model: "gpt-sim",
      messages: [{ role: "user", content: "Weather and time in Paris?" }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    const calls: { id: string; name: string; arguments: string }[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      content += choice.delta.content ?? "";
      for (const fragment of choice.delta.tool_calls ?? []) {
        calls[fragment.index] ??= { id: "", name: "", arguments: "" };
        const call = calls[fragment.index]!;
        call.id += fragment.id ?? "";
        call.name += fragment.function?.name ?? "";
        call.arguments += fragment.function?.arguments ?? "";
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(content).toBe("Let me check the weather and the time.");
    expect(calls.map((c) => ({ ...c, arguments: JSON.parse(c.arguments) }))).toEqual([
      { id: "call_w", name: "get_weather", arguments: { city: "Paris", days: [1, 2] } },
      { id: "call_t", name: "get_time", arguments: { zone: "CET" } },
    ]);
    expect(finish).toBe("tool_calls");
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it("the SDK's stream helper finalChatCompletion() gets the same message", async () => {
    const openai = await client({ script: [turn], textChunk: 3, inputChunk: 2 });
    const completion = await openai.chat.completions
      .stream({ model: "gpt-sim", messages: [{ role: "user", content: "go" }], tools })
      .finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe("Let me check the weather and the time.");
    expect(
      message?.tool_calls?.map((c) => c.type === "function" && [c.id, c.function.name, c.function.arguments]),
    ).toEqual([
      ["call_w", "get_weather", '{"city":"Paris","days":[1,2]}'],
      ["call_t", "get_time", '{"zone":"CET"}'],
    ]);
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("chat.completions.create() (non-streaming) returns the scripted message", async () => {
    const openai = await client({ script: [turn] });
    const completion = await openai.chat.completions.create({
      model: "gpt-sim",
      messages: [{ role: "user", content: "go" }],
      tools,
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0]?.message.content).toBe("Let me check the weather and the time.");
    expect(completion.choices[0]?.message.tool_calls).toHaveLength(2);
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("a validation failure surfaces as BadRequestError with the API's message", async () => {
    const openai = await client({ script: [turn] });
    const call = openai.chat.completions.create({
      model: "gpt-sim",
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_x", type: "function", function: { name: "get_weather", arguments: "{}" } },
          ],
        },
        { role: "user", content: "no tool answer" },
      ],
    });
    await expect(call).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(call).rejects.toThrow("The following tool_call_ids did not have response messages: call_x");
    expect(sim?.requests).toHaveLength(1);
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
    const completion = await openai.chat.completions.create({
      model: "gpt-sim",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.choices[0]?.message.content).toBe("served");
    expect(sim?.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("an error chunk mid-stream surfaces as an APIError from the iterator", async () => {
    const openai = await client({
      script: [
        { content: [{ type: "text", text: "abcdefgh" }], fault: { kind: "error-event", afterEvents: 2 } },
      ],
      textChunk: 2,
    });
    const stream = await openai.chat.completions.create({
      model: "gpt-sim",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const seen: string[] = [];
    const read = async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "");
    };
    await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(seen.join("")).toBe("ab");
  });
});
