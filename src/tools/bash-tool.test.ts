import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createBashTool } from "./bash-tool.js";
import { createBuiltinTools } from "./create-builtin-tools.js";

let base: string;
let root: string;
const context = (signal = new AbortController().signal): ToolContext => ({
  signal,
  toolUseId: "t1",
  state: new ToolState(),
  agentPath: [],
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-bash-test-")));
  root = join(base, "project");
  await mkdir(root);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const bash = (extra: Partial<Parameters<typeof createBashTool>[0]> = {}) =>
  createBashTool({
    cwd: root,
    outputDir: join(base, "out"),
    env: { PATH: process.env.PATH },
    killGraceMs: 300,
    ...extra,
  });

/** Alive and not a zombie (a zombie has ended; it only waits for its parent to collect its status). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc/self/stat")) return true;
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(file, "utf8");
  return text.split(/\s+/).filter(Boolean).map(Number);
}

describe("Bash", () => {
  it("runs in the working folder and returns interleaved output and the exit code", async () => {
    const result = await bash().run({ command: "pwd; echo out; echo err >&2; exit 3" }, context());
    expect(result).toEqual({ content: `${root}\nout\nerr\n\n[Exit code: 3]`, isError: false });
  });

  it("reports its output as it arrives, decoded, the same text as in the result", async () => {
    const reports: string[] = [];
    const go = join(base, "go");
    const ctx: ToolContext = {
      ...context(),
      // The command waits for this file, which is only written once "one" was reported: the test ends only if
      // the output is reported while the command runs (otherwise the command times out).
      progress: (text) => {
        reports.push(text);
        if (reports.join("").includes("one\n")) writeFileSync(go, "");
      },
    };
    const command = `echo one; until [ -e ${go} ]; do sleep 0.02; done; printf '\\343\\201'; printf '\\202\\n'; echo two >&2`;
    const result = await bash().run({ command, timeout: 10_000 }, ctx);
    expect(result).toEqual({ content: "one\nあ\ntwo\n\n[Exit code: 0]", isError: false });
    expect(reports.join("")).toBe("one\nあ\ntwo\n");
    expect(reports.every((text) => text !== "")).toBe(true);
  });

  it("says when there is no output", async () => {
    expect(await bash().run({ command: "true" }, context())).toEqual({
      content: "(no output)\n\n[Exit code: 0]",
      isError: false,
    });
  });

  it("drops provider API keys from the environment, and keeps the rest", async () => {
    const env = {
      PATH: process.env.PATH,
      ANTHROPIC_API_KEY: "a",
      OPENAI_API_KEY: "o",
      GEMINI_API_KEY: "g",
      GOOGLE_API_KEY: "go",
      MISTRAL_API_KEY: "m",
      KEEP_ME: "kept",
    };
    const result = await bash({ env }).run({ command: "env | grep -E '_API_KEY|KEEP_ME' | sort" }, context());
    expect(result).toEqual({ content: "KEEP_ME=kept\n\n[Exit code: 0]", isError: false });
  });

  it("kills the whole process group on timeout: no orphans", async () => {
    const result = await bash().run(
      {
        command: "sleep 30 & echo $! > pids; (sleep 30; true) & echo $! >> pids; echo started; sleep 30",
        timeout: 500,
      },
      context(),
    );
    expect(result).toMatchObject({ isError: true });
    const text = (result as { content: string }).content;
    expect(text).toContain("started");
    expect(text).toContain("timed out after 500 ms");
    const pids = await pidsIn(join(root, "pids"));
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it("kills a process that ignores SIGTERM, after the grace period", async () => {
    // A timeout long enough for the shell to start under load (2 cores shared by many test workers): the pid
    // file must exist before the kill, or the test would check nothing (or fail on a missing file).
    const running = bash().run(
      { command: "trap '' TERM; (trap '' TERM; sleep 30) & echo $! > pids; sleep 30", timeout: 1500 },
      context(),
    );
    let settled = false;
    void running.finally(() => {
      settled = true;
    });
    const pids = join(root, "pids");
    while (!settled && (!existsSync(pids) || (await readFile(pids, "utf8")) === "")) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const result = await running;
    expect(result).toMatchObject({ isError: true });
    const written = await pidsIn(pids);
    expect(written).toHaveLength(1);
    for (const pid of written) expect(alive(pid)).toBe(false);
  });

  it("kills the whole process group on abort, and reports the abort as an error", async () => {
    const controller = new AbortController();
    const running = bash().run(
      { command: "sleep 30 & echo $! > pids; echo go; sleep 30" },
      context(controller.signal),
    );
    while (!existsSync(join(root, "pids")) || (await readFile(join(root, "pids"), "utf8")) === "") {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    await expect(running).rejects.toThrow(/aborted/);
    for (const pid of await pidsIn(join(root, "pids"))) expect(alive(pid)).toBe(false);
  });

  it("stops processes left in the background when the command ends, instead of hanging", async () => {
    const result = await bash().run({ command: "sleep 30 & echo $! > pids; echo done" }, context());
    expect((result as { content: string }).content).toContain("done\n\n[Processes the command left running");
    for (const pid of await pidsIn(join(root, "pids"))) expect(alive(pid)).toBe(false);
  });

  it("keeps the head and tail of a long output and saves the whole of it for Read", async () => {
    const tools = createBuiltinTools({ cwd: root, tempDir: base, env: { PATH: process.env.PATH } });
    const bashTool = tools.find((tool) => tool.name === "Bash")!;
    const read = tools.find((tool) => tool.name === "Read")!;
    const ctx = context();
    const result = (await bashTool.run({ command: "seq 1 100000" }, ctx)) as { content: string };
    const text = result.content;
    expect(text.startsWith("1\n2\n3\n")).toBe(true);
    expect(text).toContain(
      "99999\n100000\n\n[Output was 588895 characters; only its beginning and end are shown.",
    );
    expect(text.length).toBeLessThan(32_000);
    const path = /saved in (\S+): Read it/.exec(text)?.[1];
    expect(path).toBeDefined();
    const saved = await readFile(path!, "utf8");
    expect(saved.split("\n")).toHaveLength(100_001);
    expect(await read.run({ file_path: path, offset: 50_000, limit: 2 }, ctx)).toMatch(
      /^ 50000\t50000\n 50001\t50001/,
    );
  });

  it("rejects an empty command; its schema caps the timeout at 10 minutes", async () => {
    await expect(bash().run({ command: "  " }, context())).rejects.toThrow(/empty/);
    expect(bash().inputSchema).toMatchObject({
      properties: { timeout: { maximum: 600_000 } },
      required: ["command"],
    });
    expect(bash().summarize?.({ command: "npm test\nnpm run lint" })).toBe("Bash npm test…");
  });

  it("reports a shell that cannot be started", async () => {
    await expect(bash({ shell: join(base, "no-shell") }).run({ command: "true" }, context())).rejects.toThrow(
      /Cannot run the command/,
    );
  });
});

describe("Bash and finished background processes", () => {
  it("does not report an orphan that already ended (a zombie) as left running", async () => {
    // The orphan holds the fifo open until it exits, so `cat` returns only once it has ended.
    const result = await bash().run(
      { command: "mkfifo f && ( (exec 3>f) & ) && cat f && echo done" },
      context(),
    );
    expect(result).toEqual({ content: "done\n\n[Exit code: 0]", isError: false });
  });
});

describe("Bash and a process that leaves the command's group", () => {
  it("returns when the command ends (not at the timeout) and says a detached process holds the output", async () => {
    const result = await bash().run(
      { command: "setsid sleep 3 & sleep 0.5; echo started", timeout: 8_000 },
      context(),
    );
    const text = typeof result === "object" && "content" in result ? String(result.content) : String(result);
    expect(text).toContain("started");
    expect(text).toContain("detached from its group");
    expect(text).toContain("Exit code: 0");
    expect(typeof result === "object" && "isError" in result && result.isError).toBe(false);
  });
});
