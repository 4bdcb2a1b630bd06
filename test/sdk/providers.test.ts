import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, inputQueue, resultsOf, sdkWorld, userMessage } from "./sdk-harness.js";

/** The SDK's `model` option names the provider: the same app, on OpenAI's or Gemini's wire. */
const PROVIDERS = [
  { label: "OpenAI Chat Completions", model: "openai:gpt-5", protocol: "openai-chat", id: "gpt-5" },
  { label: "Gemini", model: "gemini:gemini-2.5-pro", protocol: "gemini", id: "gemini-2.5-pro" },
];

describe.each(PROVIDERS)("the Claude Agent SDK's query() on mitsu with $label", (p) => {
  it("canUseTool, an in-process MCP tool, and the result priced per model", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 0; echo from-bash" } }] },
      { content: [{ type: "tool_use", name: "mcp__calc__add", input: { a: 1, b: 2 } }] },
      { content: [{ type: "text", text: "three" }] },
    ]);
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Adds", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: String(a + b) }],
        })),
      ],
    });
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "go",
        options: world.options({
          model: p.model,
          mcpServers: { calc },
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: "allow" };
          },
        }),
      }),
    );
    expect(world.sim.requests.map((r) => r.protocol)).toEqual([p.protocol, p.protocol, p.protocol]);
    expect(asked).toEqual(["Bash", "mcp__calc__add"]);
    expect(JSON.stringify(world.sim.requests[1]?.body)).toContain("from-bash");
    const result = resultsOf(messages)[0];
    expect(result).toMatchObject({ subtype: "success", result: "three" });
    expect(Object.keys(result?.modelUsage ?? {})).toEqual([p.id]);
    expect(result?.total_cost_usd).toBeGreaterThan(0);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init).toMatchObject({ model: p.id });
  });

  it("structured output and a hook, then setModel() back to Anthropic mid-session", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "StructuredOutput", input: { answer: 42 } }] },
      { content: [{ type: "text", text: "ok" }] },
      { content: [{ type: "tool_use", name: "StructuredOutput", input: { answer: 43 } }] },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };
    const input = inputQueue();
    const hooked: string[] = [];
    const q = query({
      prompt: input,
      options: world.options({
        model: p.model,
        outputFormat: { type: "json_schema", schema },
        hooks: {
          UserPromptSubmit: [
            {
              hooks: [
                async (hookInput) => {
                  hooked.push("prompt" in hookInput ? hookInput.prompt : "");
                  return {};
                },
              ],
            },
          ],
        },
      }),
    });
    input.push(userMessage("first"));
    const outputs: unknown[] = [];
    for await (const message of q) {
      if (message.type !== "result") continue;
      outputs.push(message.subtype === "success" ? message.structured_output : message.subtype);
      if (outputs.length === 1) {
        await q.setModel("anthropic:claude-sonnet-4-5");
        input.push(userMessage("second"));
      } else input.end();
    }
    expect(outputs).toEqual([{ answer: 42 }, { answer: 43 }]);
    expect(hooked).toEqual(["first", "second"]);
    expect(world.sim.requests.map((r) => r.protocol)).toEqual([
      p.protocol,
      p.protocol,
      "anthropic",
      "anthropic",
    ]);
  });
});
