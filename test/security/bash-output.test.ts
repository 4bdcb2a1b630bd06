import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/loop/tool.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { startSimulator } from "../../src/simulator/index.js";
import { createBashTool } from "../../src/tools/bash-tool.js";

// Issue 10.11: Bash output spilled to a file with no cap and no clean-up (`yes` wrote 4.8 GB in 15 s while
// mitsu's memory grew). The saved copy is capped (beginning and end kept), the command is paused while the
// file cannot keep up, progress is throttled, and the files go when the process exits.

const MiB = 1024 * 1024;
let base: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-bash-out-")));
});
afterEach(() => rm(base, { recursive: true, force: true }));

async function folderBytes(folder: string): Promise<number> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const sizes = await Promise.all(names.map((name) => stat(join(folder, name)).then((s) => s.size)));
  return sizes.reduce((sum, size) => sum + size, 0);
}

describe("issue 10.11: Bash output on disk and in memory is bounded", () => {
  it("`yes` for 3 s leaves at most 64 MiB on disk and bounded memory, with a note in the result", async () => {
    const outputDir = join(base, "out");
    const bash = createBashTool({ cwd: base, outputDir, env: { PATH: process.env.PATH } });
    let progressChars = 0;
    let progressEvents = 0;
    const context: ToolContext = {
      signal: new AbortController().signal,
      toolUseId: "t",
      state: new ToolState(),
      agentPath: [],
      progress: (text) => {
        progressEvents++;
        progressChars += text.length;
      },
    };
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    let peakDisk = 0;
    const sampler = setInterval(async () => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      peakDisk = Math.max(peakDisk, await folderBytes(outputDir));
    }, 50);
    const result = (await bash
      .run({ command: "timeout 3 yes; true", timeout: 30_000 }, context)
      .finally(() => clearInterval(sampler))) as { content: string };

    const onDisk = await folderBytes(outputDir);
    expect(onDisk).toBeLessThanOrEqual(64 * MiB + 4096);
    expect(peakDisk).toBeLessThanOrEqual(64 * MiB + 4096);
    // Memory: the result's head and tail, one MiB of the file's tail and the write buffer, not the output.
    expect(peakRss - rssBefore).toBeLessThan(200 * MiB);
    expect(result.content).toMatch(/^y\ny\ny\n/);
    expect(result.content).toMatch(
      /Its beginning and its end are saved in \S+ \(the saved copy is capped, so \d+ bytes from its middle were dropped\)/,
    );
    // Progress is a bounded stream: a few events a second, not one per pipe read.
    expect(progressEvents).toBeLessThan(100);
    expect(progressChars).toBeLessThan(2 * MiB);
  }, 30_000);

  it("a capped saved copy holds the output's beginning, a marker, and its exact end", async () => {
    const outputDir = join(base, "out");
    const bash = createBashTool({
      cwd: base,
      outputDir,
      maxSpillBytes: 4 * MiB,
      env: { PATH: process.env.PATH },
    });
    const context: ToolContext = {
      signal: new AbortController().signal,
      toolUseId: "t",
      state: new ToolState(),
      agentPath: [],
    };
    const result = (await bash.run({ command: "seq 1 2000000" }, context)) as { content: string };
    const path = /saved in (\S+) \(the saved copy is capped/.exec(result.content)?.[1] ?? "";
    const { readFile } = await import("node:fs/promises");
    const saved = await readFile(path, "utf8");
    expect(saved.length).toBeLessThanOrEqual(4 * MiB + 200);
    expect(saved.startsWith("1\n2\n3\n")).toBe(true);
    expect(saved.endsWith("1999999\n2000000\n")).toBe(true);
    expect(saved).toMatch(/\n\.\.\. \[\d+ bytes omitted: the saved output is capped at 4194304 bytes;/);
  });

  it("the oldest saved outputs are deleted once all of them exceed their total budget", async () => {
    const outputDir = join(base, "out");
    const bash = createBashTool({
      cwd: base,
      outputDir,
      maxSpillTotalBytes: 1 * MiB,
      env: { PATH: process.env.PATH },
    });
    const context: ToolContext = {
      signal: new AbortController().signal,
      toolUseId: "t",
      state: new ToolState(),
      agentPath: [],
    };
    for (let i = 0; i < 4; i++) await bash.run({ command: "seq 1 100000" }, context); // ~589 KB each
    expect(await readdir(outputDir)).toHaveLength(1);
    expect(await folderBytes(outputDir)).toBeLessThanOrEqual(1 * MiB);
  });

  it("the real mitsu command deletes its saved outputs when it exits", async () => {
    const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");
    const temp = join(base, "tmp");
    const cwd = join(base, "ws");
    const home = join(base, "home");
    for (const folder of [temp, cwd, home]) await mkdir(folder);
    const sim = await startSimulator();
    sim.enqueue(
      { content: [{ type: "tool_use", id: "toolu_big", name: "Bash", input: { command: "seq 1 100000" } }] },
      { content: [{ type: "text", text: "Done." }] },
    );
    try {
      const child = spawn(
        process.execPath,
        [bin, "-p", "print a lot", "--no-session-log", "--allowedTools", "Bash"],
        {
          cwd,
          env: {
            PATH: process.env.PATH,
            HOME: home,
            TMPDIR: temp,
            ANTHROPIC_API_KEY: "sim-key",
            ANTHROPIC_BASE_URL: sim.url,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(stderr).toBe("");
      expect(code).toBe(0);
      // The model was told where the output was saved: inside TMPDIR, in mitsu's own folder.
      const toolResult = JSON.stringify(sim.requests.at(-1)?.body);
      expect(toolResult).toMatch(/The whole output is saved in [^ ]*mitsu-bash-/);
      expect(await readdir(temp)).toEqual([]);
    } finally {
      await sim.close();
    }
  }, 30_000);
});

describe("issue 10.11: the spill folder", () => {
  it("is not created at all for outputs that fit", async () => {
    const outputDir = join(base, "out");
    const bash = createBashTool({ cwd: base, outputDir, env: { PATH: process.env.PATH } });
    await bash.run(
      { command: "echo small" },
      { signal: new AbortController().signal, toolUseId: "t", state: new ToolState(), agentPath: [] },
    );
    expect(existsSync(outputDir)).toBe(false);
  });
});
