import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function addCommand(cwd: string): void {
  mkdirSync(join(cwd, ".mitsu", "commands"), { recursive: true });
  writeFileSync(
    join(cwd, ".mitsu", "commands", "deploy.md"),
    "---\ndescription: Deploy to an environment\nargument-hint: <env>\n---\nDeploy the app to $0. Full arguments: $ARGUMENTS\n",
  );
}

describe("slash commands in print mode", () => {
  it("/deploy stg expands the file into the user message with no extra model call", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "Deploying." }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    addCommand(cwd);
    const out = await runMitsu(["-p", "/deploy stg --fast"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(sim.requests).toHaveLength(1);
    const texts = sim.requests[0]?.body.messages[0].content.map((b: { text: string }) => b.text);
    expect(texts.at(-1)).toContain("Deploy the app to stg. Full arguments: stg --fast");
  });

  it("an unknown command fails before any request", async () => {
    const s = await simulatorEnv({ script: [] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "/nope"], { cwd, home, env: s.env });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("unknown command /nope");
    expect(sim.requests).toHaveLength(0);
  });

  it("/help lists commands and the shipped skills without a model call", async () => {
    const s = await simulatorEnv({ script: [] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    addCommand(cwd);
    const out = await runMitsu(["-p", "/help"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("/deploy");
    expect(out.stdout).toContain("/commit");
    expect(sim.requests).toHaveLength(0);
  });
});

describe("mitsu skills", () => {
  it("lists the shipped skills and names a skipped file with its problem", async () => {
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(cwd, ".mitsu", "skills", "broken"), { recursive: true });
    writeFileSync(
      join(cwd, ".mitsu", "skills", "broken", "SKILL.md"),
      "---\nname: broken\n---\nno description\n",
    );
    const out = await runMitsu(["skills"], { cwd, home });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("commit");
    expect(out.stdout).toContain("review");
    expect(out.stdout).toContain("broken");
    expect(out.stdout).toContain("description");
  });
});

describe("mitsu inspect", () => {
  it("prints the exact request: reminders in the first user message, cache breakpoints, a size breakdown", async () => {
    const { cwd, home } = tempWorkspace();
    writeFileSync(join(cwd, "AGENTS.md"), "Always run the tests with node --test.\n");
    const out = await runMitsu(["inspect", "fix the bug"], { cwd, home, env: {} });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("POST https://api.anthropic.com/v1/messages");
    expect(out.stdout).toContain("<system-reminder>");
    expect(out.stdout).toContain("Always run the tests with node --test.");
    expect(out.stdout).toContain('"cache_control"');
    expect(out.stdout).toMatch(/tokens/i);
  });

  it("--json gives the body that would be sent, breakpoints on the last system block, last tool and the message", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["inspect", "--json", "hello"], { cwd, home, env: {} });
    const request = JSON.parse(out.stdout);
    const body = request.body;
    expect(request.headers["x-api-key"]).toBe("<redacted>");
    expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages[0].content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual([
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
    expect(body.tools.find((t: { name: string }) => t.name === "Write").eager_input_streaming).toBe(true);
  });

  it("--provider chooses the wire format", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(
      ["inspect", "--json", "--provider", "openai-chat", "--model", "gpt-5", "hello"],
      {
        cwd,
        home,
        env: {},
      },
    );
    const request = JSON.parse(out.stdout);
    expect(request.url).toContain("/chat/completions");
    expect(request.body.tools[0].type).toBe("function");
  });

  it("a slash command is shown expanded", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["inspect", "--json", "/commit"], { cwd, home, env: {} });
    const body = JSON.parse(out.stdout).body;
    expect(JSON.stringify(body.messages[0])).toContain("git status");
  });
});

describe("mitsu --version and --help", () => {
  it("prints the package version", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["--version"], { cwd, home });
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
    expect(out.stdout.trim()).toBe(pkg.version);
  });

  it("--help names the print-mode options", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["--help"], { cwd, home });
    for (const flag of ["--print", "--model", "--max-turns", "--output-format", "--permission-mode"]) {
      expect(out.stdout).toContain(flag);
    }
    // Repeatable options show no empty-list default.
    expect(out.stdout).not.toContain("(default: [])");
  });
});
