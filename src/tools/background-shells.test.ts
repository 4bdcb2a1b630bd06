import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool, ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { BackgroundShells } from "./background-shells.js";
import { createBuiltinTools } from "./create-builtin-tools.js";

let base: string;
let shells: BackgroundShells;
let tools: Tool<never>[];
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t",
  state: new ToolState(),
  agentPath: [],
});
const run = (name: string, input: Record<string, unknown>) => {
  const tool = tools.find((t) => t.name === name)!;
  return (tool.run as (input: Record<string, unknown>, c: ToolContext) => Promise<unknown>)(input, context());
};
const text = async (name: string, input: Record<string, unknown>) => {
  const out = await run(name, input);
  return typeof out === "string" ? out : JSON.stringify(out);
};

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

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-shells-")));
  shells = new BackgroundShells({ outputDir: join(base, "logs"), killGraceMs: 500 });
  tools = createBuiltinTools({ cwd: base, shells, env: { PATH: process.env.PATH } }) as Tool<never>[];
});
afterEach(async () => {
  await shells.killAll();
  await rm(base, { recursive: true, force: true });
});

describe("background shells", () => {
  it("returns at once with an id, and BashOutput reads only the new output each time", async () => {
    const started = Date.now();
    const answer = await text("Bash", {
      command: "echo one; sleep 0.3; echo two; sleep 30",
      run_in_background: true,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(answer).toMatch(/^Command running in the background with ID: bash_1\./);
    await until(async () => shells.list()[0] !== undefined);
    await new Promise((r) => setTimeout(r, 100));
    const first = await text("BashOutput", { bash_id: "bash_1" });
    expect(first).toContain("one");
    expect(first).toContain("[bash_1 is still running (echo one; sleep 0.3; echo two; sleep 30)]");
    await new Promise((r) => setTimeout(r, 400));
    const second = await text("BashOutput", { bash_id: "bash_1" });
    expect(second.startsWith("two\n\n[")).toBe(true);
    expect(await text("BashOutput", { bash_id: "bash_1" })).toContain("(no new output)");
    expect(shells.running().map((s) => s.id)).toEqual(["bash_1"]);
  });

  it("filters new lines with a regular expression, consuming the others", async () => {
    await run("Bash", { command: "printf 'ok 1\\nnot ok 2\\nok 3\\n'", run_in_background: true });
    await until(() => shells.list()[0]?.status === "exited");
    const out = await text("BashOutput", { bash_id: "bash_1", filter: "^ok" });
    expect(out).toContain("ok 1\nok 3");
    expect(out).not.toContain("not ok");
    expect(out).toContain("[1 lines did not match the filter]");
    expect(out).toContain("[bash_1 exited. Exit code: 0]");
    expect(await text("BashOutput", { bash_id: "bash_1" })).toContain("(no new output)");
    await expect(run("BashOutput", { bash_id: "bash_1", filter: "(" })).rejects.toThrow(
      /not a valid regular/,
    );
  });

  it("KillShell stops the command and everything it started", async () => {
    await run("Bash", { command: "sleep 60 & echo $! > child.pid; wait", run_in_background: true });
    await until(
      () => existsSync(join(base, "child.pid")) && readFileSync(join(base, "child.pid"), "utf8") !== "",
    );
    const child = Number(await readFile(join(base, "child.pid"), "utf8"));
    expect(alive(child)).toBe(true);
    expect(await text("KillShell", { shell_id: "bash_1" })).toMatch(/^Stopped bash_1/);
    expect(alive(child)).toBe(false);
    expect(shells.running()).toEqual([]);
    expect(await text("BashOutput", { bash_id: "bash_1" })).toContain("[bash_1 was stopped]");
    await expect(run("KillShell", { shell_id: "bash_9" })).rejects.toThrow(
      /No background shell with id "bash_9"/,
    );
  });

  it("killAll at the session's end stops every shell's process group", async () => {
    await run("Bash", { command: "sleep 60 & echo $! > a.pid; wait", run_in_background: true });
    await run("Bash", { command: "sleep 60", run_in_background: true });
    await until(() => existsSync(join(base, "a.pid")) && readFileSync(join(base, "a.pid"), "utf8") !== "");
    const child = Number(readFileSync(join(base, "a.pid"), "utf8"));
    expect(shells.running()).toHaveLength(2);
    await shells.killAll();
    expect(shells.running()).toEqual([]);
    expect(alive(child)).toBe(false);
  });

  it("keeps a bounded unread buffer and points to the full log", async () => {
    const small = new BackgroundShells({ outputDir: join(base, "small"), maxUnreadChars: 1000 });
    try {
      const info = small.start("seq 1 5000", { shell: "bash", cwd: base, env: { PATH: process.env.PATH } });
      await until(() => small.list()[0]?.status === "exited");
      const read = small.read(info.id);
      expect(read.text.length).toBe(1000);
      expect(read.dropped).toBeGreaterThan(0);
      expect(read.text.endsWith("5000\n")).toBe(true);
      expect((await readFile(info.logPath, "utf8")).startsWith("1\n2\n3\n")).toBe(true);
    } finally {
      await small.killAll();
    }
  });
});
