import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import type { Tool } from "../loop/tool.js";
import { type Simulator, startSimulator } from "../simulator/index.js";
import type { ScriptEntry } from "../simulator/types.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function setup(script: ScriptEntry[], extra: Partial<CodingAgentOptions> = {}) {
  sim = await startSimulator({ script });
  const root = mkdtempSync(join(tmpdir(), "mitsu-harness-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
  const env = {
    PATH: process.env.PATH,
    ANTHROPIC_API_KEY: "sim-key",
    ANTHROPIC_BASE_URL: sim.url,
    OPENAI_API_KEY: "sim-key",
    OPENAI_BASE_URL: `${sim.url}/v1`,
  };
  const options: CodingAgentOptions = { cwd, home, env, model: "anthropic:claude-sonnet-5-5", ...extra };
  return { sim, cwd, home, env, options, agent: await createCodingAgent(options) };
}

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

const text = (t: string): ScriptEntry => ({ content: [{ type: "text", text: t }] });

describe("createCodingAgent", () => {
  it("is the whole coding agent: built-in tools, permissions, context, a session log, the context window", async () => {
    const { agent, sim } = await setup([
      { content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "notes.txt" } }] },
      text("You need milk."),
    ]);
    expect(agent.tools.map((t) => t.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "Bash",
      "Grep",
      "Glob",
      "TodoWrite",
      "BashOutput",
      "KillShell",
      "WebFetch",
      "WebSearch",
      "Skill",
      "Task",
      "TaskOutput",
      "TaskStop",
      "SendMessage",
      "ExitPlanMode",
    ]);
    expect(agent.contextWindow()).toEqual({ limit: 200_000, used: undefined });
    expect(agent.sessionPath).toBeUndefined();

    const { result, events } = await drain(agent.prompt("what is in notes.txt?"));
    expect(result.reason).toBe("end_turn");
    expect(events.every((e) => e.agentPath.length === 0)).toBe(true);
    expect(JSON.stringify(sim.requests[1]?.body.messages[2])).toContain("remember the milk");
    expect(agent.history).toEqual(result.messages);
    const window = agent.contextWindow();
    expect(window.used).toBeGreaterThan(0);
    expect(window.used).toBe(
      (result.lastMessage?.usage?.input_tokens ?? 0) +
        (result.lastMessage?.usage?.cache_read_input_tokens ?? 0) +
        (result.lastMessage?.usage?.cache_creation_input_tokens ?? 0),
    );

    const lines = readFileSync(agent.sessionPath as string, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", version: 3, model: "anthropic:claude-sonnet-5-5" });
    expect(lines.map((l) => l.type)).toEqual([
      "session",
      "message",
      "message",
      "tool-start",
      "tool-result",
      "message",
      "message",
    ]);
    await agent.close();
    await agent.close();
    await expect(agent.prompt("more").next()).rejects.toThrow("This agent is closed.");
  });

  it("continues the newest session of the workspace with its transcript and its system prompt", async () => {
    const first = await setup([text("First."), text("Second.")]);
    await drain(first.agent.prompt("one"));
    await first.agent.close();
    const again = await createCodingAgent({ ...first.options, session: { continue: true } });
    expect(again.resumedMessages).toBe(2);
    expect(again.sessionPath).toBe(first.agent.sessionPath);
    await drain(again.prompt("two"));
    const [a, b] = first.sim.requests.map((r) => r.body);
    expect(b.system).toEqual(a.system);
    expect(b.messages).toHaveLength(3);
    expect(b.messages[1].content[0].text).toBe("First.");
  });

  it("a replaced history (compaction) is logged, and a resumed session continues from the replacement", async () => {
    const summary = {
      role: "user" as const,
      content: [{ type: "text" as const, text: "Summary: notes read." }],
    };
    const first = await setup(
      [
        { content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "notes.txt" } }] },
        text("Compacted answer."),
        text("After resume."),
      ],
      {
        replaceHistory: (messages, info) =>
          info.turn === 2 && info.contextWindow === 200_000 && messages.length > 1
            ? { messages: [summary], reason: "compacted" }
            : undefined,
      },
    );
    const { events } = await drain(first.agent.prompt("read the notes"));
    expect(events.find((e) => e.type === "history-replaced")).toMatchObject({ before: 3, after: 1 });
    expect(first.agent.context.diagnostics.at(-1)).toEqual({ ok: true, epoch: "compacted" });
    await first.agent.close();
    const lines = readFileSync(first.agent.sessionPath as string, "utf8")
      .trim()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toContain("compaction");

    const again = await createCodingAgent({
      ...first.options,
      replaceHistory: () => undefined,
      session: { continue: true },
    });
    expect(again.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    // The summary, with the reminders the replaced messages carried sent again before it (the skills list).
    expect(again.history[0]?.content.at(-1)).toMatchObject({ type: "text", text: "Summary: notes read." });
    expect(JSON.stringify(again.history[0]?.content[0])).toContain("Available skills");
    await drain(again.prompt("go on"));
    expect(first.sim.requests[2]?.body.messages).toHaveLength(3);
    await again.close();
  });

  it("clear() starts a new conversation and a new session file; the permission rules stay", async () => {
    const { agent } = await setup([text("A."), text("B.")]);
    await drain(agent.prompt("one"));
    const firstFile = agent.sessionPath;
    agent.permissions.allowAlways("Bash(ls:*)");
    await agent.clear();
    expect(agent.history).toEqual([]);
    expect(agent.contextWindow().used).toBeUndefined();
    await drain(agent.prompt("two"));
    expect(agent.sessionPath).not.toBe(firstFile);
    expect(agent.history).toHaveLength(2);
  });

  it("a tool's spawn starts a child on another provider, whose events surface tagged with the Task call's id", async () => {
    const task = {
      name: "Task",
      description: "Runs a sub-agent",
      inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
      async run(input: { prompt: string }, context) {
        const result = await context.spawn?.({
          system: "You read files.",
          prompt: input.prompt,
          tools: ["Read"],
          model: "openai:gpt-5",
        });
        const answer = result?.lastMessage?.content.find((b) => b.type === "text");
        return answer?.type === "text" ? answer.text : `no answer (${result?.reason})`;
      },
    } as Tool<{ prompt: string }> as unknown as Tool<never>;
    const { agent, sim } = await setup(
      [
        {
          content: [
            { type: "tool_use", id: "toolu_task", name: "Task", input: { prompt: "read notes.txt" } },
          ],
        },
        { content: [{ type: "tool_use", id: "call_read", name: "Read", input: { file_path: "notes.txt" } }] },
        text("It says: remember the milk."),
        text("The child found it."),
      ],
      // Task asks by default; the test's user allows it.
      { tools: [task], allowedTools: ["Task"] },
    );
    const { events, result } = await drain(agent.prompt("delegate"));
    expect(result.reason).toBe("end_turn");
    expect(sim.requests.map((r) => r.protocol)).toEqual([
      "anthropic",
      "openai-chat",
      "openai-chat",
      "anthropic",
    ]);
    const child = sim.requests[1]?.body;
    // Its own system prompt, then the environment section for its own model.
    expect(child.messages[0].role).toBe("system");
    expect(child.messages[0].content).toMatch(/^You read files\.\n\n# Environment\n[\s\S]*\nModel: gpt-5\n/);
    expect(child.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["Read"]);
    const childEvents = events.filter((e) => e.agentPath.length > 0);
    expect(new Set(childEvents.map((e) => e.agentPath.join("/")))).toEqual(new Set(["toolu_task"]));
    expect(childEvents.some((e) => e.type === "tool-call-end" && e.block.name === "Read")).toBe(true);
    const taskEnd = events.find((e) => e.type === "tool-call-end" && e.block.id === "toolu_task");
    expect(taskEnd?.type === "tool-call-end" && taskEnd.result.content).toBe("It says: remember the milk.");
    // The child's run is not the parent's conversation: only the parent's messages are in its history and log.
    expect(agent.history).toHaveLength(4);
  });

  it("a child asking for an unknown tool or model ends at once with an error the Task tool can report", async () => {
    const { agent } = await setup([]);
    const origin = { agentPath: ["toolu_1"], signal: new AbortController().signal };
    const unknownTool = await drain(agent.spawn({ system: "s", prompt: "p", tools: ["Nope"] }, origin));
    expect(unknownTool.result.error).toEqual({
      type: "invalid_tools",
      message: "Unknown tool for a sub-agent: Nope",
    });
    expect(unknownTool.events).toEqual([
      { type: "agent-end", ...unknownTool.result, agentPath: ["toolu_1"] },
    ]);
    const badModel = await drain(agent.spawn({ system: "s", prompt: "p", model: "nowhere:model" }, origin));
    expect(badModel.result.error?.type).toBe("invalid_model");
    const deep = await drain(
      agent.spawn({ system: "s", prompt: "p" }, { ...origin, agentPath: ["a", "b", "c", "d"] }),
    );
    expect(deep.result.error?.type).toBe("spawn_depth");
  });
});
