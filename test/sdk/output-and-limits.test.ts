import { query, type SDKResultMessage, startup } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { collect, inputQueue, resultsOf, sdkWorld, userMessage } from "./sdk-harness.js";

describe("the Claude Agent SDK's query() driving mitsu: messages, limits, what is not supported", () => {
  it("one assistant message per content block, sharing the message id; stream_event lines with includePartialMessages", async () => {
    const world = await sdkWorld([
      {
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", name: "Glob", input: { pattern: "*.md" } },
        ],
      },
      { content: [{ type: "text", text: "Nothing there." }] },
    ]);
    const messages = await collect(
      query({ prompt: "look", options: world.options({ includePartialMessages: true }) }),
    );
    const assistants = messages.filter((m) => m.type === "assistant");
    expect(
      assistants.map((m) => (m.type === "assistant" ? m.message.content.map((b) => b.type) : [])),
    ).toEqual([["text"], ["tool_use"], ["text"]]);
    const ids = assistants.map((m) => (m.type === "assistant" ? m.message.id : ""));
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    const events = messages.flatMap((m) => (m.type === "stream_event" ? [m.event] : []));
    expect(events.map((e) => e.type)).toContain("message_start");
    const text = events
      .flatMap((e) =>
        e.type === "content_block_delta" && e.delta.type === "text_delta" ? [e.delta.text] : [],
      )
      .join("");
    expect(text).toBe("Let me look.Nothing there.");
    const json = events
      .flatMap((e) =>
        e.type === "content_block_delta" && e.delta.type === "input_json_delta" ? [e.delta.partial_json] : [],
      )
      .join("");
    expect(JSON.parse(json)).toEqual({ pattern: "*.md" });
    expect(events.filter((e) => e.type === "message_stop")).toHaveLength(2);
  });

  it("maxTurns: Claude Code's error_max_turns result, with errors[] and terminal_reason", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Glob", input: { pattern: "*" } }] },
      { content: [{ type: "tool_use", name: "Glob", input: { pattern: "*" } }] },
    ]);
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options({ maxTurns: 1 }) });
    input.push(userMessage("loop"));
    const results: SDKResultMessage[] = [];
    // The last prompt ended in an error: mitsu exits 1 and the SDK throws with the result's text, as with Claude Code.
    const thrown = await (async () => {
      for await (const message of q) {
        if (message.type === "result") {
          results.push(message);
          input.end();
        }
      }
    })().catch((error: Error) => error);
    expect(String(thrown)).toContain("maximum number of turns");
    expect(results[0]).toMatchObject({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
      num_turns: 1,
      terminal_reason: "max_turns",
    });
    expect(results[0] && "errors" in results[0] ? results[0].errors : []).toHaveLength(1);
  });

  it("maxBudgetUsd: the prompt stops once it costs more, with error_max_budget_usd", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Glob", input: { pattern: "*" } }] },
      { content: [{ type: "text", text: "never asked for" }] },
    ]);
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options({ maxBudgetUsd: 0.000001 }) });
    input.push(userMessage("spend"));
    let result: unknown;
    const thrown = await (async () => {
      for await (const message of q) {
        if (message.type === "result") {
          result = message;
          input.end();
        }
      }
    })().catch((error: Error) => error);
    expect(String(thrown)).toContain("maximum budget");
    expect(result).toMatchObject({ subtype: "error_max_budget_usd", terminal_reason: "budget_exhausted" });
    expect((result as { total_cost_usd: number }).total_cost_usd).toBeGreaterThan(0.000001);
    expect(world.sim.requests).toHaveLength(1);
  });

  it("maxBudgetUsd with a model of unknown price: a warning says it cannot be held, and total_cost_usd is null", async () => {
    const world = await sdkWorld([{ content: [{ type: "text", text: "local answer" }] }]);
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(`${world.home}/.mitsu`, { recursive: true });
    writeFileSync(
      `${world.home}/.mitsu/models.json`,
      JSON.stringify({
        providers: {
          local: {
            api: "openai-chat",
            baseURL: `${world.sim.url}/v1`,
            apiKeyEnv: "OPENAI_API_KEY",
            models: [{ id: "qwen3:32b" }],
          },
        },
      }),
    );
    const messages = await collect(
      query({ prompt: "hi", options: world.options({ model: "local:qwen3:32b", maxBudgetUsd: 0.01 }) }),
    );
    const warning = messages.find((m) => m.type === "system" && m.subtype === "informational");
    expect(warning && "content" in warning ? warning.content : "").toContain("no known price");
    const result = resultsOf(messages)[0];
    expect(result).toMatchObject({ subtype: "success", result: "local answer", total_cost_usd: null });
  });

  it("initialize is answered: supportedCommands(), supportedModels(), supportedAgents(), mcpServerStatus(), getContextUsage()", async () => {
    const world = await sdkWorld([{ content: [{ type: "text", text: "hi" }] }]);
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options() });
    const commands = await q.supportedCommands();
    expect(Array.isArray(commands)).toBe(true);
    const models = await q.supportedModels();
    expect(models[0]?.value).toBe("claude-sonnet-5-5");
    const agents = await q.supportedAgents();
    expect(agents.map((a) => a.name)).toContain("Explore");
    expect(await q.mcpServerStatus()).toEqual([]);
    const usage = await q.getContextUsage();
    expect(usage.maxTokens).toBeGreaterThan(0);
    expect(usage.categories.find((c) => c.id === "system_prompt")?.tokens).toBeGreaterThan(0);
    input.push(userMessage("hi"));
    for await (const message of q) if (message.type === "result") input.end();
  });

  it("startup() starts mitsu ahead, and its query() answers", async () => {
    const world = await sdkWorld([{ content: [{ type: "text", text: "warm" }] }]);
    const warm = await startup({ options: world.options() });
    const messages = await collect(warm.query("hi"));
    expect(resultsOf(messages)[0]).toMatchObject({ subtype: "success", result: "warm" });
  });

  it("a control request mitsu does not support is answered with an error that says so", async () => {
    const world = await sdkWorld([]);
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options() });
    await expect(q.reloadSkills()).rejects.toThrow(/reload_skills.*not supported by mitsu/);
    // The session is still there.
    expect((await q.supportedModels()).length).toBe(1);
    input.end();
    await collect(q);
  });

  it("an option mitsu cannot honour fails at once, naming the flag", async () => {
    const world = await sdkWorld([]);
    const failure = await collect(
      query({ prompt: "hi", options: world.options({ extraArgs: { "task-budget": "5" } }) }),
    ).catch((error: Error) => error);
    expect(String(failure)).toContain("--task-budget");
    expect(world.sim.requests).toHaveLength(0);
  });

  it("an unknown flag is an error naming it", async () => {
    const world = await sdkWorld([]);
    const failure = await collect(
      query({ prompt: "hi", options: world.options({ extraArgs: { "frobnicate-widgets": null } }) }),
    ).catch((error: Error) => error);
    expect(String(failure)).toContain("--frobnicate-widgets");
  });
});
