import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const todos = [
  { content: "Read the code", status: "completed", activeForm: "Reading the code" },
  { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
  { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("TodoWrite through mitsu -p", () => {
  it("shows the list as a checklist, runs without asking, and reminds the model once the list goes stale", async () => {
    const bash = (i: number) => ({
      content: [{ type: "tool_use" as const, id: `toolu_b${i}`, name: "Glob", input: { pattern: "*.md" } }],
    });
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", id: "toolu_t1", name: "TodoWrite", input: { todos } }] },
        ...Array.from({ length: 11 }, (_, i) => bash(i)),
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "fix it", "--no-session-log"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      "● TodoWrite 3 tasks: 1 completed, 1 in progress, 1 pending\n  ⎿ ☒ Read the code\n    ◼ Fixing the bug\n    ☐ Run the tests\n",
    );
    const sentTexts = (i: number) =>
      JSON.stringify(
        sim!.requests[i]!.body.messages.at(-1).content.filter((b: { type: string }) => b.type === "text"),
      );
    // Ten assistant turns without an update: the reminder joins the newest user message, with the list.
    const reminded = sim.requests.findIndex((_, i) =>
      sentTexts(i).includes("The TodoWrite tool has not been used recently"),
    );
    expect(reminded).toBe(11);
    expect(sentTexts(11)).toContain("2. [in_progress] Fix the bug");
    // History as sent is never rewritten: each request extends the one before (the cache prefix holds).
    for (let i = 1; i < sim.requests.length; i++) {
      const before = JSON.stringify(
        sim.requests[i - 1]!.body.messages.map((m: { content: unknown }) => m.content),
      );
      const after = JSON.stringify(
        sim.requests[i]!.body.messages.slice(0, sim.requests[i - 1]!.body.messages.length).map(
          (m: { content: unknown }) => m.content,
        ),
      );
      expect(after.replace(/,"cache_control":\{[^}]*\}/g, "")).toBe(
        before.replace(/,"cache_control":\{[^}]*\}/g, ""),
      );
    }
  });
});

describe("background shells through mitsu -p", () => {
  it("runs a command in the background, reads its output, and stops it when mitsu ends", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_bg",
              name: "Bash",
              input: { command: "echo started; echo $$ > shell.pid; sleep 60", run_in_background: true },
            },
          ],
        },
        // The next turn comes when the file is there: give the command a moment.
        { content: [{ type: "tool_use", id: "toolu_wait", name: "Bash", input: { command: "sleep 0.5" } }] },
        {
          content: [{ type: "tool_use", id: "toolu_out", name: "BashOutput", input: { bash_id: "bash_1" } }],
        },
        { content: [{ type: "text", text: "It runs." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "start it", "--allowedTools", "Bash", "--no-session-log"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("● Bash echo started; echo $$ > shell.pid; sleep 60 (background)");
    expect(out.stderr).toContain("stopped 1 background shell still running at exit: bash_1");
    const results = sim.requests
      .at(-1)!
      .body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []));
    const output = results.find((b: { tool_use_id?: string }) => b.tool_use_id === "toolu_out");
    expect(output.content).toContain("started");
    expect(output.content).toContain("[bash_1 is still running");
    const pid = Number(readFileSync(join(cwd, "shell.pid"), "utf8"));
    expect(alive(pid)).toBe(false);
  });

  it("the real binary stops the process group of a background shell when it exits", async () => {
    const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");
    expect(existsSync(bin), "npm run build first").toBe(true);
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_bg",
              name: "Bash",
              input: { command: "sleep 60 & echo $! > child.pid; wait", run_in_background: true },
            },
          ],
        },
        { content: [{ type: "tool_use", id: "toolu_wait", name: "Bash", input: { command: "sleep 0.5" } }] },
        { content: [{ type: "text", text: "Started." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const child = spawn(process.execPath, [bin, "-p", "go", "--allowedTools", "Bash", "--no-session-log"], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ...s.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.once("close", done));
    expect(code, stdout).toBe(0);
    const pid = Number(readFileSync(join(cwd, "child.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });
});

describe("a background shell when mitsu is killed outright", () => {
  it("dies with it (kill -9): the watchdog stops its process group", async () => {
    const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");
    expect(existsSync(bin), "npm run build first").toBe(true);
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_bg",
              name: "Bash",
              input: { command: "sleep 60 & echo $! > child.pid; wait", run_in_background: true },
            },
          ],
        },
        { content: [{ type: "tool_use", id: "toolu_hold", name: "Bash", input: { command: "sleep 30" } }] },
        { content: [{ type: "text", text: "never" }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const mitsu = spawn(process.execPath, [bin, "-p", "go", "--allowedTools", "Bash", "--no-session-log"], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ...s.env },
      stdio: "ignore",
    });
    const pidFile = join(cwd, "child.pid");
    for (let i = 0; i < 250 && !(existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== ""); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    mitsu.kill("SIGKILL");
    await new Promise((resolve) => mitsu.once("close", resolve));
    for (let i = 0; i < 150 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(pid)).toBe(false);
  });
});

describe("the tools field across runs", () => {
  it("is byte-identical from one mitsu run to the next, the new tools included (the cached prefix holds)", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    for (const prompt of ["first", "second"]) {
      const out = await runMitsu(["-p", prompt, "--sandbox", "--no-session-log"], { cwd, home, env: s.env });
      expect(out.code).toBe(0);
    }
    const [a, b] = sim.requests.map((request) => request.body);
    const names = a.tools.map((t: { name: string }) => t.name);
    for (const name of ["TodoWrite", "BashOutput", "KillShell", "WebFetch", "WebSearch"])
      expect(names).toContain(name);
    expect(JSON.stringify(b.tools)).toBe(JSON.stringify(a.tools));
    expect(JSON.stringify(b.system)).toBe(JSON.stringify(a.system));
  });
});
