import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Question } from "../../src/harness/asker.js";
import type { Simulator } from "../../src/simulator/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import type { SimTurn } from "../../src/simulator/types.js";
import { runMitsu, tempWorkspace } from "../cli/cli-harness.js";
import { cleanDirs, codingAgentOn, drain, PROVIDERS } from "./agents-support.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  cleanDirs();
});

const turn = (content: SimTurn["content"]): SimTurn => ({ content });
const exitPlan = (id: string, plan: string) =>
  turn([{ type: "tool_use", id, name: "ExitPlanMode", input: { plan } }]);
const write = turn([
  { type: "tool_use", id: "call_w", name: "Write", input: { file_path: "done.txt", content: "ok\n" } },
]);
const PLAN_REMINDER = "Plan mode is active";

describe.each(PROVIDERS)("plan mode on %s", (_name, model) => {
  it("the model presents its plan; feedback refines it; approval changes the mode to the user's choice", async () => {
    sim = await startSimulator({
      script: [
        exitPlan("call_p1", "1. Write done.txt"),
        exitPlan("call_p2", "1. Write done.txt\n2. Add a test"),
        write,
        turn([{ type: "text", text: "Done." }]),
      ],
    });
    const questions: Question[] = [];
    const answers = [{ refine: "Add a test too." }, { approve: "acceptEdits" as const }];
    const { agent, cwd } = await codingAgentOn(sim, model, {
      permissionMode: "plan",
      asker: {
        kinds: ["permission", "plan"],
        ask: (q) => {
          questions.push(q);
          return q.kind === "plan" ? answers.shift() : "deny";
        },
      },
    });
    const { events, result } = await drain(agent.prompt("plan, then write done.txt"));
    expect(result.reason).toBe("end_turn");
    // Two plan questions, no permission question (acceptEdits writes in the workspace without one).
    expect(questions.map((q) => q.kind)).toEqual(["plan", "plan"]);
    expect(questions[1]!.kind === "plan" && questions[1]!.plan).toContain("Add a test");
    const ends = events.flatMap((e) => (e.type === "tool-call-end" ? [e] : []));
    const [first, second] = ends.filter((e) => e.block.name === "ExitPlanMode");
    expect(first!.result.is_error).toBe(true);
    expect(JSON.stringify(first!.result.content)).toContain("Add a test too.");
    expect(second!.result.is_error).toBeFalsy();
    expect(JSON.stringify(second!.result.content)).toContain("permission mode: acceptEdits");
    expect(agent.permissionMode.mode).toBe("acceptEdits");
    expect(existsSync(join(cwd, "done.txt"))).toBe(true);
    // The plan-mode reminder rode on the first request; it stops once the mode changed.
    expect(JSON.stringify(sim.requests[0]!.body)).toContain(PLAN_REMINDER);
    const last = JSON.stringify(sim.requests[3]!.body);
    expect(last.split(PLAN_REMINDER).length - 1).toBe(1);
    await agent.close();
  });
});

describe("plan approval through the other front-ends' seams", () => {
  it("an Asker that answers only permissions gets ExitPlanMode's permission question with the plan (as can_use_tool)", async () => {
    sim = await startSimulator({
      script: [exitPlan("call_p", "Step one."), turn([{ type: "text", text: "Going." }])],
    });
    const asked: Question[] = [];
    const { agent } = await codingAgentOn(sim, "anthropic:claude-sonnet-4-5", {
      permissionMode: "plan",
      asker: {
        kinds: ["permission"],
        ask: (q) => {
          asked.push(q);
          return "allow_once";
        },
      },
    });
    await drain(agent.prompt("plan it"));
    expect(asked).toHaveLength(1);
    const q = asked[0]!;
    expect(q.kind === "permission" && q.request.toolName).toBe("ExitPlanMode");
    expect(q.kind === "permission" && q.request.input).toEqual({ plan: "Step one." });
    expect(agent.permissionMode.mode).toBe("default");
    await agent.close();
  });

  it("mitsu -p --permission-mode plan: ExitPlanMode is denied (permission_denials), unless a rule allows it", async () => {
    const script = () => [exitPlan("call_p", "Step one."), turn([{ type: "text", text: "Stopped." }])];
    sim = await startSimulator({ script: script() });
    const { cwd, home } = tempWorkspace();
    const env = { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
    const denied = await runMitsu(["-p", "plan it", "--permission-mode", "plan", "--output-format", "json"], {
      cwd,
      home,
      env,
    });
    const out = JSON.parse(denied.stdout);
    expect(out.permission_denials.map((d: { tool_name: string }) => d.tool_name)).toEqual(["ExitPlanMode"]);
    await sim.close();

    sim = await startSimulator({ script: script() });
    const allowed = await runMitsu(
      [
        "-p",
        "plan it",
        "--permission-mode",
        "plan",
        "--allowedTools",
        "ExitPlanMode",
        "--output-format",
        "json",
      ],
      { cwd, home, env: { ...env, ANTHROPIC_BASE_URL: sim.url } },
    );
    expect(JSON.parse(allowed.stdout).permission_denials).toEqual([]);
    expect(JSON.stringify(sim.requests[1]!.body)).toContain("permission mode: default");
  });

  it("hooks are told the mode ExitPlanMode changed to, not plan (a command hook records its input)", async () => {
    sim = await startSimulator({
      script: [
        exitPlan("call_p", "Step one."),
        turn([{ type: "tool_use", id: "call_r", name: "Read", input: { file_path: "a.txt" } }]),
        turn([{ type: "text", text: "Done." }]),
      ],
    });
    const { cwd, home } = tempWorkspace();
    writeFileSync(join(cwd, "a.txt"), "a\n");
    const seen = join(home, "hook-inputs.jsonl");
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    const record = { hooks: [{ type: "command", command: `cat >> ${seen}; echo >> ${seen}` }] };
    writeFileSync(
      join(home, ".mitsu", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [record], PostToolUse: [record] } }),
    );
    const env = { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
    const run = await runMitsu(
      ["-p", "plan it", "--permission-mode", "plan", "--allowedTools", "ExitPlanMode"],
      { cwd, home, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const inputs = readFileSync(seen, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map(
        (line) => JSON.parse(line) as { hook_event_name: string; tool_name: string; permission_mode: string },
      );
    expect(inputs.map((i) => `${i.hook_event_name} ${i.tool_name} ${i.permission_mode}`)).toEqual([
      "PreToolUse ExitPlanMode plan",
      "PostToolUse ExitPlanMode default",
      "PreToolUse Read default",
      "PostToolUse Read default",
    ]);
  });
});
