import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import type { Tool } from "../loop/tool.js";
import { type Simulator, startSimulator } from "../simulator/index.js";
import type { ScriptEntry } from "../simulator/types.js";
import type { Asker } from "./asker.js";
import type { Capability } from "./capability.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function options(
  script: ScriptEntry[],
  extra: Partial<CodingAgentOptions>,
): Promise<CodingAgentOptions> {
  sim = await startSimulator({ script });
  const root = mkdtempSync(join(tmpdir(), "mitsu-capability-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  mkdirSync(cwd, { recursive: true });
  const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
  return { cwd, home: join(root, "home"), env, model: "anthropic:claude-sonnet-5-5", mcp: false, ...extra };
}

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

const nowTool: Tool<never> = {
  name: "Now",
  description: "The time now.",
  inputSchema: { type: "object", properties: {} },
  run: async () => "12:00",
};
const callNow: ScriptEntry = { content: [{ type: "tool_use", id: "toolu_now", name: "Now", input: {} }] };
const text = (t: string): ScriptEntry => ({ content: [{ type: "text", text: t }] });
/** The text of the tool_result the model got for the call `toolu_now` (the request after it). */
const nowResult = (s: Simulator) => JSON.stringify(s.requests[1]?.body.messages.at(-1));

describe("capabilities", () => {
  it("an embedder's capability adds a tool, a reminder, a command, a rule, context per prompt; started before the agent is handed out and closed once", async () => {
    const calls: string[] = [];
    let started = false;
    const clock: Capability = {
      name: "clock",
      start: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        started = true;
      },
      tools: [nowTool],
      reminders: [
        { name: "clock", collect: (s) => (s.firstUserMessage ? "Now tells the time." : undefined) },
      ],
      commands: [{ name: "time", expand: (args) => `What time is it in ${args}?` }],
      permissions: { allow: ["Now"] },
      beforePrompt: ({ text }) => [`asked: ${String(text)}`],
      close: () => {
        calls.push("close");
      },
    };
    const agent = await createCodingAgent(await options([callNow, text("Noon.")], { capabilities: [clock] }));
    expect(started).toBe(true);
    // After the built-in tools, in order: the cache prefix.
    expect(agent.tools.map((t) => t.name).slice(-7)).toEqual([
      "Skill",
      "Task",
      "TaskOutput",
      "TaskStop",
      "SendMessage",
      "ExitPlanMode",
      "Now",
    ]);
    const slash = agent.expandSlash("/time Tokyo");
    expect(slash.kind).toBe("mcp-prompt");
    if (slash.kind === "mcp-prompt") expect(await slash.expand()).toBe("What time is it in Tokyo?");

    const { result } = await drain(agent.prompt("what time is it?"));
    expect(result.reason).toBe("end_turn");
    const s = sim as Simulator;
    const first = JSON.stringify(s.requests[0]?.body.messages.at(-1));
    expect(first).toContain("Now tells the time.");
    expect(first).toContain("asked: what time is it?");
    // Allowed by the capability's rule: no one was asked (print mode denies what it would ask).
    expect(nowResult(s)).toContain("12:00");
    expect(s.requests[1]?.body.tools).toEqual(s.requests[0]?.body.tools);
    await agent.close();
    await agent.close();
    expect(calls).toEqual(["close"]);
  });

  it("a capability contributes a skill folder, an agent folder and a command hook, as a plugin does: in the first request, named after it", async () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-contrib-"));
    dirs.push(root);
    mkdirSync(join(root, "skills", "greet"), { recursive: true });
    writeFileSync(
      join(root, "skills", "greet", "SKILL.md"),
      "---\nname: greet\ndescription: Greets the user warmly.\n---\nSay hello.\n",
    );
    mkdirSync(join(root, "agents"), { recursive: true });
    writeFileSync(
      join(root, "agents", "scout.md"),
      "---\nname: scout\ndescription: Scouts the code.\n---\nYou scout.\n",
    );
    const kit: Capability = {
      name: "kit",
      contributes: {
        skills: [{ path: join(root, "skills"), plugin: "kit" }],
        agents: [{ path: join(root, "agents"), plugin: "kit" }],
        hooks: [
          {
            event: "UserPromptSubmit",
            matcher: "",
            command: "echo kit-hook-context",
            timeoutMs: 10_000,
            source: "capability kit",
          },
        ],
      },
    };
    const agent = await createCodingAgent(await options([text("Hello.")], { capabilities: [kit] }));
    await drain(agent.prompt("hi"));
    const request = JSON.stringify((sim as Simulator).requests[0]?.body);
    expect(request).toContain("kit:greet");
    expect(request).toContain("Greets the user warmly.");
    expect(request).toContain("kit:scout");
    expect(request).toContain("kit-hook-context");
    await agent.close();
  });

  it("a start that fails stops createCodingAgent, and what started is closed", async () => {
    const closed: string[] = [];
    const good: Capability = { name: "good", start: () => {}, close: () => void closed.push("good") };
    const bad: Capability = {
      name: "bad",
      start: async () => {
        throw new Error("no database");
      },
      close: () => void closed.push("bad"),
    };
    await expect(createCodingAgent(await options([], { capabilities: [good, bad] }))).rejects.toThrow(
      "no database",
    );
    expect(closed.sort()).toEqual(["bad", "good"]);
  });

  it("a capability's deny rule removes a built-in tool from the request", async () => {
    const agent = await createCodingAgent(
      await options([], { capabilities: [{ name: "no-shell", permissions: { deny: ["Bash"] } }] }),
    );
    expect(agent.tools.map((t) => t.name)).not.toContain("Bash");
    await agent.close();
  });
});

describe("the Asker seam", () => {
  const withAsker = (asker: Asker) =>
    options([callNow, text("done")], {
      capabilities: [{ name: "clock", tools: [nowTool] }],
      asker,
    });

  it("answers a permission question: allow_once runs the call", async () => {
    const asked: string[] = [];
    const agent = await createCodingAgent(
      await withAsker({
        ask: (question) => {
          asked.push(question.kind === "permission" ? question.request.toolName : question.kind);
          return "allow_once";
        },
      }),
    );
    await drain(agent.prompt("time?"));
    expect(asked).toEqual(["Now"]);
    expect(nowResult(sim as Simulator)).toContain("12:00");
    await agent.close();
  });

  it("deny wins: an answer that throws, or none, is a refusal", async () => {
    for (const ask of [
      () => {
        throw new Error("the client went away");
      },
      () => undefined,
    ]) {
      const agent = await createCodingAgent(await withAsker({ ask }));
      const { result } = await drain(agent.prompt("time?"));
      expect(result.reason).toBe("end_turn");
      expect(nowResult(sim as Simulator)).not.toContain("12:00");
      expect(nowResult(sim as Simulator)).toContain("is_error");
      await agent.close();
      await sim?.close();
      sim = undefined;
    }
  });

  it("an 'always' through the seam is kept for the session and saved to the project's local settings, and the asker is told", async () => {
    const told: string[] = [];
    let asked = 0;
    const opts = await options([callNow, callNow, text("done")], {
      capabilities: [{ name: "clock", tools: [nowTool] }],
      asker: {
        ask: () => {
          asked++;
          return "allow_always";
        },
        notify: (message) => void told.push(message),
      },
    });
    const agent = await createCodingAgent(opts);
    await drain(agent.prompt("time, twice?"));
    expect(asked).toBe(1);
    const saved = JSON.parse(readFileSync(join(opts.cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(saved.permissions.allow).toEqual(["Now"]);
    expect(told).toEqual([expect.stringMatching(/^saved Now to .*settings\.local\.json$/)]);
    await agent.close();
  });

  it("the kinds an Asker leaves go to the older one-function options", async () => {
    const agent = await createCodingAgent(
      await options([callNow, text("done")], {
        capabilities: [{ name: "clock", tools: [nowTool] }],
        asker: { kinds: ["trust"], ask: () => false },
        ask: async () => "allow_once",
      }),
    );
    await drain(agent.prompt("time?"));
    expect(nowResult(sim as Simulator)).toContain("12:00");
    await agent.close();
  });
});
