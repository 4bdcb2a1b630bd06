import { query } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { collect, inputQueue, resultsOf, sdkWorld, userMessage } from "./sdk-harness.js";

describe("the Claude Agent SDK's query() driving mitsu: the session", () => {
  it("streaming input: an async iterable of user messages is one conversation, a result per message", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "one" }] },
      { content: [{ type: "text", text: "two" }] },
    ]);
    async function* prompts() {
      yield userMessage("first");
      yield userMessage("second");
    }
    const messages = await collect(query({ prompt: prompts(), options: world.options() }));
    expect(resultsOf(messages).map((r) => (r.subtype === "success" ? r.result : r.subtype))).toEqual([
      "one",
      "two",
    ]);
    // The second request carries the first exchange.
    expect(world.sim.requests[1]?.body.messages).toHaveLength(3);
    // One init, and a uuid on every message.
    expect(messages.filter((m) => m.type === "system" && m.subtype === "init")).toHaveLength(1);
    expect(messages.every((m) => typeof (m as { uuid?: unknown }).uuid === "string")).toBe(true);
  });

  it("interrupt() stops the running prompt; the session goes on with the next message", async () => {
    // One entry for both requests: a turn is consumed only when served, so the interrupted request's slow turn
    // would otherwise be the next request's too.
    const world = await sdkWorld([
      (request) =>
        JSON.stringify(request.body.messages).includes("again")
          ? { content: [{ type: "text", text: "after" }] }
          : { content: [{ type: "text", text: "slow" }], latencyMs: 10_000 },
    ]);
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options() });
    input.push(userMessage("take your time"));
    const seen: string[] = [];
    const started = Date.now();
    for await (const message of q) {
      seen.push(message.type === "result" ? `result:${message.subtype}` : message.type);
      // The init line comes with the first model call: the request is in flight.
      if (message.type === "system" && message.subtype === "init") {
        // Control requests mid-turn are answered while the model call is in flight.
        expect(await q.mcpServerStatus()).toEqual([]);
        await q.setMaxThinkingTokens(2048);
        expect((await q.getContextUsage()).totalTokens).toBeGreaterThan(0);
        await q.interrupt();
      }
      if (message.type === "result" && seen.filter((s) => s.startsWith("result")).length === 1) {
        expect(message).toMatchObject({ is_error: true, terminal_reason: "aborted_streaming" });
        input.push(userMessage("again"));
      }
      if (message.type === "result" && message.subtype === "success") input.end();
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen.filter((s) => s.startsWith("result"))).toEqual([
      "result:error_during_execution",
      "result:success",
    ]);
  });

  it("setPermissionMode() changes what needs asking from the next call on", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "a.txt", content: "A" } }] },
      { content: [{ type: "text", text: "refused" }] },
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "b.txt", content: "B" } }] },
      { content: [{ type: "text", text: "written" }] },
    ]);
    const input = inputQueue();
    const modes: string[] = [];
    const q = query({
      prompt: input,
      options: world.options({
        hooks: {
          PreToolUse: [
            {
              hooks: [
                async (hookInput) => {
                  modes.push(hookInput.permission_mode ?? "");
                  return {};
                },
              ],
            },
          ],
        },
      }),
    });
    input.push(userMessage("write a"));
    const results: Array<{ subtype: string; denials: number }> = [];
    for await (const message of q) {
      if (message.type !== "result") continue;
      results.push({ subtype: message.subtype, denials: message.permission_denials.length });
      if (results.length === 1) {
        await q.setPermissionMode("acceptEdits");
        input.push(userMessage("write b"));
      } else input.end();
    }
    const { existsSync } = await import("node:fs");
    expect(results).toEqual([
      { subtype: "success", denials: 1 },
      { subtype: "success", denials: 0 },
    ]);
    expect(existsSync(`${world.cwd}/a.txt`)).toBe(false);
    expect(existsSync(`${world.cwd}/b.txt`)).toBe(true);
    // Hooks are told the mode now.
    expect(modes).toEqual(["default", "acceptEdits"]);
  });

  it("after setPermissionMode('plan'), an approved ExitPlanMode changes the mode: hooks are told default, not plan", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "hello" }] },
      { content: [{ type: "tool_use", name: "ExitPlanMode", input: { plan: "1. Read a.txt" } }] },
      { content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${world.cwd}/a.txt`, "a\n");
    const input = inputQueue();
    const seen: string[] = [];
    const asked: string[] = [];
    const q = query({
      prompt: input,
      options: world.options({
        canUseTool: async (toolName, toolInput) => {
          asked.push(toolName);
          return { behavior: "allow", updatedInput: toolInput };
        },
        hooks: {
          PreToolUse: [
            {
              hooks: [
                async (hookInput) => {
                  const tool = (hookInput as { tool_name?: string }).tool_name;
                  seen.push(`${tool} ${hookInput.permission_mode}`);
                  return {};
                },
              ],
            },
          ],
        },
      }),
    });
    input.push(userMessage("hi"));
    let results = 0;
    for await (const message of q) {
      if (message.type !== "result") continue;
      results++;
      if (results === 1) {
        await q.setPermissionMode("plan");
        input.push(userMessage("plan, then read a.txt"));
      } else input.end();
    }
    expect(asked).toEqual(["ExitPlanMode"]);
    expect(seen).toEqual(["ExitPlanMode plan", "Read default"]);
    // The model was told the mode it is in now.
    expect(JSON.stringify(world.sim.requests[2]?.body.messages)).toContain("permission mode: default");
  });

  it("setModel() sends the next prompt to another model, and modelUsage names it", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "from sonnet" }] },
      { content: [{ type: "text", text: "from haiku" }] },
    ]);
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options({ model: "claude-sonnet-4-5" }) });
    input.push(userMessage("one"));
    const usageKeys: string[][] = [];
    for await (const message of q) {
      if (message.type !== "result") continue;
      usageKeys.push(Object.keys(message.modelUsage));
      if (usageKeys.length === 1) {
        await q.setModel("claude-haiku-4-5");
        input.push(userMessage("two"));
      } else input.end();
    }
    expect(world.sim.requests.map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-haiku-4-5"]);
    expect(usageKeys).toEqual([["claude-sonnet-4-5"], ["claude-haiku-4-5"]]);
  });

  it("resume: a second query() with the first one's session_id continues its conversation", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "remembered" }] },
      { content: [{ type: "text", text: "yes" }] },
    ]);
    const first = resultsOf(await collect(query({ prompt: "remember 7", options: world.options() })))[0];
    expect(first?.session_id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await collect(
      query({ prompt: "what number?", options: world.options({ resume: first?.session_id ?? "" }) }),
    );
    const sent = world.sim.requests[1]?.body.messages;
    expect(JSON.stringify(sent)).toContain("remember 7");
    expect(JSON.stringify(sent)).toContain("remembered");
    expect(resultsOf(second)[0]?.session_id).toBe(first?.session_id);
  });

  it("forkSession: resuming in a new session leaves the first one as it was", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "first" }] },
      { content: [{ type: "text", text: "forked" }] },
    ]);
    const first = resultsOf(await collect(query({ prompt: "one", options: world.options() })))[0];
    const fork = resultsOf(
      await collect(
        query({
          prompt: "two",
          options: world.options({ resume: first?.session_id ?? "", forkSession: true }),
        }),
      ),
    )[0];
    expect(fork?.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(fork?.session_id).not.toBe(first?.session_id);
    expect(JSON.stringify(world.sim.requests[1]?.body.messages)).toContain("first");
  });

  it("interrupt() while canUseTool waits: the app's callback is told to give up (its signal aborts)", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 0; echo x" } }] },
    ]);
    const input = inputQueue();
    let aborted: Promise<void> | undefined;
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const q = query({
      prompt: input,
      options: world.options({
        canUseTool: (_name, _input, { signal }) => {
          aborted = new Promise((resolve) =>
            signal.addEventListener("abort", () => resolve(), { once: true }),
          );
          asked();
          return new Promise(() => {});
        },
      }),
    });
    input.push(userMessage("run it"));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const message of q) {
        if (message.type === "result") {
          seen.push(message.subtype);
          input.end();
        }
      }
    })();
    await wasAsked;
    await q.interrupt();
    await aborted;
    await reading.catch(() => {});
    expect(seen).toEqual(["error_during_execution"]);
    expect(world.sim.requests).toHaveLength(1);
  });

  it("structured output: the answer comes through the StructuredOutput tool, validated, as structured_output", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, population: { type: "number" } },
      required: ["city", "population"],
      additionalProperties: false,
    };
    const world = await sdkWorld([
      // Plain text first: the model is reminded to use the tool.
      { content: [{ type: "text", text: "Paris, about two million" }] },
      // An answer that does not validate goes back as an error.
      { content: [{ type: "tool_use", name: "StructuredOutput", input: { city: "Paris" } }] },
      {
        content: [
          { type: "tool_use", name: "StructuredOutput", input: { city: "Paris", population: 2102650 } },
        ],
      },
      { content: [{ type: "text", text: "Given." }] },
    ]);
    const messages = await collect(
      query({
        prompt: "Largest city of France?",
        options: world.options({ outputFormat: { type: "json_schema", schema } }),
      }),
    );
    const result = resultsOf(messages)[0];
    expect(result).toMatchObject({
      subtype: "success",
      structured_output: { city: "Paris", population: 2102650 },
    });
    const tools = world.sim.requests[0]?.body.tools.map((t: { name: string }) => t.name);
    expect(tools).toContain("StructuredOutput");
    expect(JSON.stringify(world.sim.requests[2]?.body.messages.at(-1))).toContain("population");
  });

  it("structured output that never comes ends with error_max_structured_output_retries", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "no" }] },
      { content: [{ type: "text", text: "still no" }] },
      { content: [{ type: "text", text: "never" }] },
    ]);
    const schema = { type: "object", properties: { x: { type: "number" } }, required: ["x"] };
    const messages = await collect(
      query({ prompt: "x?", options: world.options({ outputFormat: { type: "json_schema", schema } }) }),
    ).catch((error: Error) => error);
    expect(messages).toBeInstanceOf(Error);
    expect(String((messages as Error).message)).toContain("structured output");
    expect(world.sim.requests).toHaveLength(3);
  });

  it("sub-agents from `agents`: their messages carry parent_tool_use_id, their model counts in modelUsage and total_cost_usd", async () => {
    const world = await sdkWorld([
      {
        content: [
          {
            type: "tool_use",
            name: "Task",
            input: { subagent_type: "reviewer", description: "review", prompt: "Review the diff." },
          },
        ],
      },
      { content: [{ type: "text", text: "Looks fine." }] },
      { content: [{ type: "text", text: "The reviewer says it looks fine." }] },
    ]);
    const messages = await collect(
      query({
        prompt: "review",
        options: world.options({
          model: "claude-sonnet-4-5",
          agents: {
            reviewer: { description: "Reviews diffs.", prompt: "You review diffs.", model: "haiku" },
          },
        }),
      }),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init && "agents" in init ? init.agents : []).toContain("reviewer");
    const task = messages.find(
      (m) => m.type === "assistant" && m.message.content.some((b: { type: string }) => b.type === "tool_use"),
    );
    const taskId = task?.type === "assistant" ? (task.message.content[0] as { id: string }).id : "";
    const child = messages.filter((m) => m.type === "assistant" && m.parent_tool_use_id === taskId);
    expect(child.map((m) => (m.type === "assistant" ? m.message.content[0] : undefined))).toEqual([
      { type: "text", text: "Looks fine." },
    ]);
    expect(world.sim.requests[1]?.body.model).toMatch(/haiku/);
    const result = resultsOf(messages)[0];
    const models = Object.keys(result?.modelUsage ?? {});
    expect(models).toHaveLength(2);
    expect(models).toContain("claude-sonnet-4-5");
    const sum = Object.values(result?.modelUsage ?? {}).reduce((n, u) => n + u.costUSD, 0);
    expect(result?.total_cost_usd).toBeCloseTo(sum, 10);
    expect(Object.values(result?.modelUsage ?? {}).every((u) => u.costUSD > 0)).toBe(true);
    expect(
      Object.values(result?.modelUsage ?? {}).every((u) => u.contextWindow > 0 && u.maxOutputTokens > 0),
    ).toBe(true);
  });

  it("rewindFiles() puts back the files a prompt's Write and Edit changed (dry run first)", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "a.txt", content: "new" } }] },
      { content: [{ type: "text", text: "written" }] },
    ]);
    const { existsSync } = await import("node:fs");
    const input = inputQueue();
    const q = query({ prompt: input, options: world.options({ permissionMode: "acceptEdits" }) });
    const id = "8f0f7d0e-1f1e-4c33-9a51-3d2b8c4e5a61";
    input.push(userMessage("write a", id));
    for await (const message of q) {
      if (message.type !== "result") continue;
      expect(existsSync(`${world.cwd}/a.txt`)).toBe(true);
      expect(await q.rewindFiles(id, { dryRun: true })).toMatchObject({ canRewind: true });
      expect(existsSync(`${world.cwd}/a.txt`)).toBe(true);
      const done = await q.rewindFiles(id);
      expect(done.canRewind).toBe(true);
      expect(done.filesChanged?.map((f) => f.replace(/.*\//, ""))).toEqual(["a.txt"]);
      expect(await q.rewindFiles("00000000-0000-4000-8000-000000000000")).toMatchObject({ canRewind: false });
      input.end();
    }
    expect(existsSync(`${world.cwd}/a.txt`)).toBe(false);
  });
});

describe("the Claude Agent SDK's query() driving mitsu: slash commands in prompts", () => {
  it("a command is expanded, /compact compacts with a compact_boundary, an unknown one is an error result", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "hello to you" }] },
      { content: [{ type: "text", text: "<summary>We said hello.</summary>" }] },
    ]);
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(`${world.cwd}/.mitsu/commands`, { recursive: true });
    writeFileSync(
      `${world.cwd}/.mitsu/commands/greet.md`,
      "---\ndescription: Greets someone.\n---\nSay hello to $ARGUMENTS.\n",
    );
    async function* prompts() {
      yield userMessage("/greet the reader");
      yield userMessage("/compact keep the greeting");
      yield userMessage("/no-such-command");
    }
    const seen: string[] = [];
    const thrown = await (async () => {
      for await (const m of query({ prompt: prompts(), options: world.options() }))
        seen.push(
          m.type === "result" ? `result:${m.subtype}` : `${m.type}${"subtype" in m ? `:${m.subtype}` : ""}`,
        );
    })().catch((error: Error) => error);
    // The last prompt failed: the SDK throws after the messages, as with Claude Code.
    expect(String(thrown)).toContain("Unknown slash command: /no-such-command");
    expect(seen.filter((t) => t.startsWith("result") || t.endsWith("compact_boundary"))).toEqual([
      "result:success",
      "system:compact_boundary",
      "result:success",
      "result:error_during_execution",
    ]);
    expect(JSON.stringify(world.sim.requests[0]?.body.messages)).toContain("Say hello to the reader.");
    expect(JSON.stringify(world.sim.requests[1]?.body)).toContain("keep the greeting");
    expect(world.sim.requests).toHaveLength(2);
  });
});
