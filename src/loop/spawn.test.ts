import { describe, expect, it } from "vitest";
import { emptyUsage, type Message } from "../messages/index.js";
import { TestProvider, textTurn, toolTurn, toolUse } from "../testing/test-provider.js";
import type { AgentEvent, AgentResult } from "./agent-event.js";
import { type RunAgentOptions, runAgent } from "./run-agent.js";
import type { Spawner } from "./spawn.js";
import type { Tool } from "./tool.js";

const prompt: Message = { role: "user", content: [{ type: "text", text: "research this" }] };

async function collect(options: RunAgentOptions) {
  const events: AgentEvent[] = [];
  const run = runAgent(options);
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

/** A Task-like tool that knows nothing but `ToolContext.spawn`. */
const task = {
  name: "Task",
  description: "Runs a sub-agent",
  inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  async run(input: { prompt: string }, context) {
    if (!context.spawn) return { content: "Sub-agents are not available here.", isError: true };
    const result = await context.spawn({
      system: "You are a researcher.",
      prompt: input.prompt,
      tools: ["Ping"],
    });
    const text = result.lastMessage?.content.find((b) => b.type === "text");
    return text?.type === "text" ? text.text : `(the sub-agent ended: ${result.reason})`;
  },
} as Tool<{ prompt: string }> as unknown as Tool<never>;

const ping = {
  name: "Ping",
  description: "ping",
  inputSchema: { type: "object" },
  run: async (_input: unknown, context: { agentPath: readonly string[] }) =>
    `pong from [${context.agentPath}]`,
} as unknown as Tool<never>;

describe("spawn (the sub-agent seam)", () => {
  it("a child's events surface in the parent's stream, tagged with its path, inside the Task call", async () => {
    const parentProvider = new TestProvider([
      toolTurn([toolUse("task_1", "Task", { prompt: "find it" })]),
      textTurn("parent done"),
    ]);
    const childProvider = new TestProvider([toolTurn([toolUse("c1", "Ping")]), textTurn("found it")]);
    const origins: unknown[] = [];
    const spawn: Spawner = (request, origin) => {
      origins.push(origin);
      return runAgent({
        provider: childProvider,
        model: "child-model",
        system: request.system,
        tools: [ping].filter((t) => request.tools?.includes(t.name) ?? true),
        messages: [{ role: "user", content: [{ type: "text", text: request.prompt }] }],
        agentPath: origin.agentPath,
        signal: origin.signal,
      });
    };
    const { events, result } = await collect({
      provider: parentProvider,
      model: "m",
      tools: [task],
      messages: [prompt],
      spawn,
    });
    expect(result.reason).toBe("end_turn");
    expect(origins).toEqual([{ agentPath: ["task_1"], signal: expect.any(AbortSignal) }]);
    expect(childProvider.requests[0]?.system).toEqual([{ type: "text", text: "You are a researcher." }]);
    expect(childProvider.requests[0]?.tools.map((t) => t.name)).toEqual(["Ping"]);

    const start = events.findIndex((e) => e.type === "tool-call-start" && e.block.id === "task_1");
    const end = events.findIndex((e) => e.type === "tool-call-end" && e.block.id === "task_1");
    const child = events.filter((e) => e.agentPath.length > 0);
    expect(child.length).toBeGreaterThan(0);
    expect(child.every((e) => e.agentPath.join() === "task_1")).toBe(true);
    for (const e of child) {
      const at = events.indexOf(e);
      expect(at).toBeGreaterThan(start);
      expect(at).toBeLessThan(end);
    }
    expect(child.map((e) => e.type)).toContain("text-delta");
    expect(child.at(-1)?.type).toBe("agent-end");
    // The child's own tool ran with the child's path; the parent saw only the Task's result.
    const pingEnd = child.find((e) => e.type === "tool-call-end");
    expect(pingEnd?.type === "tool-call-end" && pingEnd.result.content).toBe("pong from [task_1]");
    const taskEnd = events[end];
    expect(taskEnd?.type === "tool-call-end" && taskEnd.result.content).toBe("found it");
    expect(events.filter((e) => e.agentPath.length === 0).every((e) => e.agentPath.length === 0)).toBe(true);
  });

  it("without a spawner, a tool sees no spawn capability", async () => {
    const provider = new TestProvider([
      toolTurn([toolUse("task_1", "Task", { prompt: "x" })]),
      textTurn("ok"),
    ]);
    const { events } = await collect({ provider, model: "m", tools: [task], messages: [prompt] });
    const end = events.find((e) => e.type === "tool-call-end");
    expect(end?.type === "tool-call-end" && end.result).toMatchObject({ is_error: true });
  });

  it("aborting the parent aborts the child, and the child's late events are dropped", async () => {
    const controller = new AbortController();
    let childSignal: AbortSignal | undefined;
    const spawn: Spawner = async function* (_request, origin): AsyncGenerator<AgentEvent, AgentResult> {
      childSignal = origin.signal;
      yield { type: "warning", turn: 1, agentPath: origin.agentPath, code: "child", message: "started" };
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield { type: "warning", turn: 1, agentPath: origin.agentPath, code: "child", message: "late" };
      return { reason: "aborted", messages: [], usage: emptyUsage() };
    };
    const provider = new TestProvider([toolTurn([toolUse("task_1", "Task", { prompt: "x" })])]);
    const { events, result } = await collect({
      provider,
      model: "m",
      tools: [task],
      messages: [prompt],
      spawn,
      signal: controller.signal,
    });
    expect(result.reason).toBe("aborted");
    expect(childSignal?.aborted).toBe(true);
    const messages = events.filter((e) => e.type === "warning").map((e) => e.type === "warning" && e.message);
    expect(messages).toEqual(["started"]);
  });
});

describe("agentPath", () => {
  it("is on every event: empty at the top level, the given path for a run started as a child", async () => {
    const top = await collect({
      provider: new TestProvider([textTurn("hi")]),
      model: "m",
      messages: [prompt],
    });
    expect(top.events.every((e) => Array.isArray(e.agentPath) && e.agentPath.length === 0)).toBe(true);
    const child = await collect({
      provider: new TestProvider([textTurn("hi")]),
      model: "m",
      messages: [prompt],
      agentPath: ["toolu_1", "toolu_2"],
    });
    expect(child.events.every((e) => e.agentPath.join("/") === "toolu_1/toolu_2")).toBe(true);
  });
});
