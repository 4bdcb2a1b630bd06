import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolState } from "../../src/loop/tool-state.js";
import type { Simulator } from "../../src/simulator/index.js";
import { BackgroundShells } from "../../src/tools/background-shells.js";
import { createBashTool } from "../../src/tools/bash-tool.js";
import { simulatorEnv } from "../cli/cli-harness.js";
import { startMitsu } from "./run-bin.js";

// Issue 21, item 5: a background shell's log had no cap and was never removed (3.1 GB in 27 s, still there after
// exit); `setsid` inside run_in_background, or `(setsid … &)` in a foreground command, outlived mitsu's exit and
// `kill -9`. These run the built command: `npm run build` first.

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** Host pids whose command line holds `token` (an odd sleep duration no other process uses). */
function pidsWith(token: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(token)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

async function waitFor(test: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a background shell's log", () => {
  it("is capped like a foreground output's saved copy, and removed when the session ends", async () => {
    const outputDir = join(temp("mitsu-bg-log-"), "shells");
    const shells = new BackgroundShells({ outputDir, maxLogBytes: 1024 * 1024 });
    const info = shells.start("head -c 30000000 /dev/zero | tr '\\0' x; echo; echo the-end", {
      shell: "/bin/sh",
      cwd: outputDir.replace(/shells$/, ""),
      env: { PATH: process.env.PATH },
    });
    await waitFor(() => shells.list()[0]?.status === "exited", "the shell to exit", 60_000);
    await waitFor(() => readFileSync(info.logPath, "utf8").endsWith("the-end\n"), "the log's tail");
    const size = statSync(info.logPath).size;
    expect(size).toBeLessThan(1024 * 1024 + 1024);
    expect(readFileSync(info.logPath, "utf8")).toMatch(/bytes omitted: the saved output is capped/);
    await shells.killAll();
    expect(existsSync(info.logPath)).toBe(false);
    expect(existsSync(outputDir)).toBe(false);
  });
});

describe("processes that leave their group with setsid", () => {
  const bash = (id: string, command: string, background = false) => ({
    content: [
      {
        type: "tool_use" as const,
        id: `toolu_${id}`,
        name: "Bash",
        input: background ? { command, run_in_background: true } : { command },
      },
    ],
  });

  it.each(["exit", "kill -9"])("do not outlive mitsu's %s", async (ending) => {
    const cwd = temp("mitsu-setsid-");
    const home = join(cwd, "home");
    const bg = `987.${process.pid}${Date.now() % 100000}`;
    const fg = `876.${process.pid}${Date.now() % 100000}`;
    const s = await simulatorEnv({
      script: [
        bash("bg", `setsid sh -c 'touch bg-started; exec sleep ${bg}' & sleep 600`, true),
        // Once the background one is up (a state, not a delay).
        bash("fg", `until [ -e bg-started ]; do sleep 0.05; done; (setsid sleep ${fg} &); echo started`),
        { content: [{ type: "text", text: "Done." }], latencyMs: ending === "exit" ? 0 : 60_000 },
      ],
    });
    sim = s.sim;
    const run = startMitsu(["-p", "go", "--permission-mode", "bypassPermissions", "--no-session-log"], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ...s.env },
    });
    await waitFor(() => s.sim.requests.length >= 3, "the tool results");
    if (ending === "kill -9") {
      await waitFor(() => pidsWith(bg).length > 0, "the background setsid process");
      run.child.kill("SIGKILL");
    }
    await run.done;
    expect(existsSync(join(cwd, "bg-started"))).toBe(true);
    // The watchdog's grace: SIGTERM, then SIGKILL a second later.
    await waitFor(
      () => pidsWith(bg).length === 0 && pidsWith(fg).length === 0,
      "the setsid processes to end",
    );
  });

  const foreground = (cwd: string, sandboxed: boolean) =>
    createBashTool({
      cwd,
      outputDir: join(cwd, "out"),
      env: { PATH: process.env.PATH, HOME: cwd },
      ...(sandboxed ? { sandbox: { writableRoots: [cwd] } } : {}),
    });
  const context = () => ({
    signal: new AbortController().signal,
    toolUseId: "t",
    state: new ToolState(),
    agentPath: [],
  });

  it("end with a sandboxed foreground command (its PID namespace)", async () => {
    const cwd = temp("mitsu-setsid-fg-");
    const token = `765.${process.pid}${Date.now() % 100000}`;
    const out = await foreground(cwd, true).run(
      { command: `(setsid sleep ${token} > /dev/null 2>&1 &); echo started` },
      context(),
    );
    expect(String((out as { content: unknown }).content)).toContain("started");
    await waitFor(() => pidsWith(token).length === 0, "the setsid process to end", 5_000);
  });

  it("are stopped with a foreground command that times out", async () => {
    const cwd = temp("mitsu-setsid-timeout-");
    const token = `654.${process.pid}${Date.now() % 100000}`;
    const out = await foreground(cwd, false).run(
      { command: `(setsid sleep ${token} > /dev/null 2>&1 &); sleep 30`, timeout: 1_000 },
      context(),
    );
    expect(String((out as { content: unknown }).content)).toContain("timed out");
    await waitFor(() => pidsWith(token).length === 0, "the setsid process to end", 5_000);
  });
});
