import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/harness/index.js";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import { INTERRUPTED_MESSAGE } from "../../src/loop/run-tools.js";
import { loadSession } from "../../src/session/load-session.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const explore = (id: string, description: string, prompt: string) => ({
  type: "tool_use" as const,
  id,
  name: "Task",
  input: { description, prompt, subagent_type: "Explore" },
});
const SCRIPT = [
  { content: [explore("toolu_task", "find auth", "Where is the auth code?")] },
  { content: [{ type: "tool_use" as const, id: "c_grep", name: "Grep", input: { pattern: "function" } }] },
  { content: [{ type: "text" as const, text: "Found it in src/auth.ts." }] },
  { content: [{ type: "text" as const, text: "The auth code is in src/auth.ts." }] },
];

function sessionFiles(home: string): string[] {
  const projects = join(home, ".mitsu", "projects");
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith(".jsonl")) out.push(join(dir, entry.name));
    }
  };
  walk(projects);
  return out.sort();
}

describe("sub-agents through the mitsu command", () => {
  it("mitsu -p: a sub-agent's denied call is shown under its Task call", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use" as const,
              id: "toolu_gp",
              name: "Task",
              input: {
                description: "clean up",
                prompt: "Remove the build folder.",
                subagent_type: "general-purpose",
              },
            },
          ],
        },
        {
          content: [
            { type: "tool_use" as const, id: "c_rm", name: "Bash", input: { command: "rm -rf build" } },
          ],
        },
        { content: [{ type: "text" as const, text: "I was not allowed to." }] },
        { content: [{ type: "text" as const, text: "The sub-agent could not remove it." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "clean up"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/↳ .*rm -rf build.* — Permission to use Bash\(rm -rf build\) was denied:/);
  });

  it("mitsu -p: the Task call is one block that ends in a one-line summary; its transcript is saved beside the session's, linked by the call id", async () => {
    const s = await simulatorEnv({ script: SCRIPT });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "where is the auth code?"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("● Task(Explore: find auth)");
    expect(out.stdout).toMatch(/⎿ Done — Explore: 2 turns, 1 tool call, [\d,]+ tokens, [\d.]+ s/);
    expect(out.stdout).toContain("The auth code is in src/auth.ts.");
    expect(out.stdout).not.toContain("Found it in src/auth.ts.");
    // Not at a terminal (no line to redraw): its calls are listed under the Task call.
    expect(out.stdout).toContain("  ↳ Grep");

    // The parent's next request carries only the sub-agent's answer.
    const parentNext = JSON.stringify(sim.requests[3]!.body.messages);
    expect(parentNext).toContain("Found it in src/auth.ts.");
    expect(parentNext).not.toContain("c_grep");

    const files = sessionFiles(home);
    expect(files).toHaveLength(2);
    const parentPath = files.find((f) => readFileSync(f, "utf8").includes('"subagent"'));
    const childPath = files.find((f) => f !== parentPath);
    const parentLines = readFileSync(parentPath!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const link = parentLines.find((l) => l.type === "subagent");
    expect(link.toolUseId).toBe("toolu_task");
    expect(join(parentPath!, "..", link.path)).toBe(childPath);
    const childLines = readFileSync(childPath!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(childLines[0].type).toBe("session");
    expect(childLines[0].parent).toMatchObject({ toolUseId: "toolu_task", agent: "Explore" });
    expect(JSON.stringify(childLines[0].system)).toContain("You are Explore");
    expect(childLines.filter((l) => l.type === "message").map((l) => l.message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);

    // -c continues the parent's session, not the sub-agent's.
    sim.enqueue({ content: [{ type: "text", text: "Still src/auth.ts." }] });
    const again = await runMitsu(["-p", "-c", "and again?"], { cwd, home, env: s.env });
    expect(again.code).toBe(0);
    // (the sub-agent's file is newer, but its header names its parent: -c passes over it)
    const continued = JSON.stringify(sim.requests.at(-1)!.body.messages);
    expect(continued).toContain("where is the auth code?");
    expect(continued).toContain("and again?");
  });

  it("--verbose shows the sub-agent's whole stream, each line marked with its task", async () => {
    const s = await simulatorEnv({ script: SCRIPT });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--verbose", "where is the auth code?"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("┆ find auth ┆ ● Grep");
    expect(out.stdout).toContain("┆ find auth ┆ Found it in src/auth.ts.");
  });

  it("--output-format stream-json (Claude Code's) gives a sub-agent's messages the Task call's id as parent_tool_use_id", async () => {
    const s = await simulatorEnv({ script: SCRIPT });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "stream-json", "where?"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    const lines = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const child = lines.filter((l) => l.parent_tool_use_id === "toolu_task");
    expect(child.some((l) => l.type === "assistant")).toBe(true);
    expect(
      lines.filter((l) => l.type === "assistant" && l.parent_tool_use_id === null).length,
    ).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success" });
  });

  it("--output-format mitsu-events tags each sub-agent event with the Task call's id as parent_tool_use_id", async () => {
    const s = await simulatorEnv({ script: SCRIPT });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "mitsu-events", "where?"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    const events = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const child = events.filter((e) => e.parent_tool_use_id === "toolu_task");
    expect(child.map((e) => e.type)).toEqual(
      expect.arrayContaining(["turn-start", "tool-call-start", "agent-end"]),
    );
    expect(child.every((e) => e.agentPath.join() === "toolu_task")).toBe(true);
    const top = events.filter((e) => e.parent_tool_use_id === null);
    expect(top.some((e) => e.type === "tool-call-end" && e.block.id === "toolu_task")).toBe(true);
    expect(events.every((e) => "parent_tool_use_id" in e)).toBe(true);
  });

  it("mitsu agents lists name, source, tools and model, and each skipped file with its field", async () => {
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(cwd, ".claude", "agents"), { recursive: true });
    writeFileSync(
      join(cwd, ".claude", "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep, WebSearch\nmodel: haiku\n---\nReview.\n",
    );
    writeFileSync(join(cwd, ".claude", "agents", "broken.md"), "---\nname: broken\n---\nNo description.\n");
    const out = await runMitsu(["agents"], { cwd, home });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Explore  [builtin]");
    expect(out.stdout).toContain("general-purpose  [builtin]");
    expect(out.stdout).toContain("reviewer  [project]  .claude/agents/reviewer.md");
    expect(out.stdout).toContain("tools: Read, Grep  (not available here: WebSearch)");
    expect(out.stdout).toContain("model: haiku");
    expect(out.stdout).toContain(".claude/agents/broken.md: description: is required");
  });

  it("mitsu inspect --agent Explore shows the sub-agent's first request: its system, its tools, the task", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["inspect", "--agent", "Explore", "--json", "where is the auth code?"], {
      cwd,
      home,
    });
    expect(out.code).toBe(0);
    const body = JSON.parse(out.stdout).body;
    expect(body.system[0].text).toContain("You are Explore");
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Bash", "Grep", "Glob"]);
    expect(JSON.stringify(body.messages)).toContain("where is the auth code?");
    const unknown = await runMitsu(["inspect", "--agent", "Nobody", "x"], { cwd, home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown agent Nobody");
  });
});

describe("an embedder's own agent type (createCodingAgent)", () => {
  it("is offered by the Task tool and runs with its own prompt, tools and model alias", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_t",
              name: "Task",
              input: { description: "run tests", prompt: "Run the tests.", subagent_type: "test-runner" },
            },
          ],
        },
        { content: [{ type: "text", text: "2 tests fail." }] },
        { content: [{ type: "text", text: "Two tests fail." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const agent = await createCodingAgent({
      cwd,
      home,
      env: { PATH: process.env.PATH, ...s.env },
      model: "anthropic:claude-sonnet-5-5",
      session: { log: false },
      agents: [
        {
          name: "test-runner",
          description: "Runs the test suite and reports the failures.",
          prompt: "You run the tests and report each failure.",
          tools: ["Bash", "Read", "Grep"],
          model: "haiku",
        },
      ],
    });
    const task = agent.tools.find((t) => t.name === "Task")!;
    expect(task.description).toContain("- test-runner: Runs the test suite and reports the failures.");
    let result: { reason: string } | undefined;
    const run = agent.prompt("why do the tests fail?");
    for (;;) {
      const next = await run.next();
      if (next.done) {
        result = next.value;
        break;
      }
    }
    await agent.close();
    expect(result?.reason).toBe("end_turn");
    const child = sim.requests[1]!.body;
    expect(child.model).toBe("claude-haiku-4-5");
    expect(child.system[0].text).toBe("You run the tests and report each failure.");
    // The parent's tools it names, in the parent's order.
    expect(child.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Bash", "Grep"]);
  });
});

describe("Ctrl-C with sub-agents running (mitsu -p)", () => {
  it("stops every sub-agent: exit 130, each Task interrupted, every transcript on disk valid", async () => {
    const held = () => ({ content: [{ type: "text" as const, text: "too late" }], latencyMs: 5_000 });
    const s = await simulatorEnv({
      script: [
        { content: [explore("toolu_a", "part a", "look at a"), explore("toolu_b", "part b", "look at b")] },
        held,
        held,
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const controller = new AbortController();
    const poll = setInterval(() => {
      if (s.sim.requests.length === 3) controller.abort();
    }, 10);
    const started = performance.now();
    const out = await runMitsu(["-p", "look at both"], { cwd, home, env: s.env, signal: controller.signal });
    clearInterval(poll);
    expect(out.code).toBe(130);
    expect(performance.now() - started).toBeLessThan(4_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const files = sessionFiles(home);
    expect(files).toHaveLength(3);
    for (const file of files) {
      expect(checkTranscript(loadSession(file).messages), file).toEqual([]);
    }
    const parent = files.find((f) => readFileSync(f, "utf8").includes('"subagent"'))!;
    const results = loadSession(parent)
      .messages.filter((m) => m.role === "user")
      .flatMap((m) => m.content)
      .filter((b) => b.type === "tool_result");
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ["toolu_a", true],
      ["toolu_b", true],
    ]);
    expect(JSON.stringify(results)).toContain(INTERRUPTED_MESSAGE);
  });
});
