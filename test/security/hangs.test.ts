import { execFileSync } from "node:child_process";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool, ToolContext } from "../../src/loop/tool.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { discoverSkills } from "../../src/skills/discover-skills.js";
import { getReadTracker } from "../../src/tools/read-tracker.js";
import { call, calls, E2eHarness } from "../e2e/e2e-harness.js";

// Issue 10, "Hangs": inputs that used to stall a call (or the whole event loop) forever, or grow a request
// without bound: special files (12, 13), quadratic diffs (12) and oversized skills (13).

let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

function context(state = new ToolState()): ToolContext {
  return { signal: new AbortController().signal, toolUseId: "t", state, agentPath: [] };
}

function tool(name: string): Tool<Record<string, unknown>> {
  const found = h.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no ${name} tool`);
  return found as unknown as Tool<Record<string, unknown>>;
}

/** `promise`, or a failure naming `what` once `ms` have passed (rather than a silent hang until the test timeout). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

/** A character device (/dev/null's numbers) inside the workspace, where the system allows making one. */
function mknodNull(path: string): boolean {
  try {
    execFileSync("mknod", [path, "c", "1", "3"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("issue 10.13: special files never hang a tool", () => {
  it("Grep, Read, Write and Edit on a FIFO answer at once, each saying what it is", async () => {
    mkfifo(h.path("pipe"));
    await within(
      10_000,
      "the turn",
      h.run([
        calls(
          call("grep", "Grep", { pattern: "x", path: "pipe" }),
          call("read", "Read", { file_path: "pipe" }),
          call("write", "Write", { file_path: "pipe", content: "x" }),
          call("edit", "Edit", { file_path: "pipe", old_string: "a", new_string: "b" }),
        ),
      ]),
    );
    for (const id of ["grep", "read", "write", "edit"]) {
      expect(h.sent(id).is_error, id).toBe(true);
      expect(h.sentText(id), id).toContain("it is a named pipe (FIFO)");
    }
  });

  it("Grep over a folder that holds a FIFO searches the files and skips the FIFO", async () => {
    await h.put("src/a.txt", "needle\n");
    mkfifo(h.path("src/pipe"));
    const result = await within(10_000, "Grep", tool("Grep").run({ pattern: "needle" }, context()));
    expect(result).toBe("Found 1 file:\nsrc/a.txt");
  });

  it("Write refuses a file swapped for a FIFO after it was Read, instead of waiting on it forever", async () => {
    // A FIFO whose stats the tracker holds, as if the file the model Read had been replaced by one since.
    const path = h.path("swapped");
    mkfifo(path);
    const state = new ToolState();
    getReadTracker(state).record(path, await stat(path));
    const outcome = await within(
      5_000,
      "Write",
      tool("Write")
        .run({ file_path: "swapped", content: "x" }, context(state))
        .catch((error: Error) => error),
    );
    expect(String(outcome)).toContain("it is a named pipe (FIFO)");
  });

  it("Write, Read and Grep refuse a device", async (test) => {
    if (!mknodNull(h.path("null"))) test.skip();
    const outcomes = await within(
      5_000,
      "the tools",
      Promise.all(
        [
          tool("Write").run({ file_path: "null", content: "x" }, context()),
          tool("Read").run({ file_path: "null" }, context()),
          tool("Grep").run({ pattern: "x", path: "null" }, context()),
        ].map((p) => p.then(String, (error: Error) => `error: ${error.message}`)),
      ),
    );
    for (const outcome of outcomes) expect(outcome).toMatch(/^error: .*it is a character device/);
  });
});

describe("issue 10.12: the diff after Write and Edit has a budget", () => {
  const lines = (count: number, tag: string) =>
    Array.from({ length: count }, (_, i) => `${tag} line ${i} ${(i * 7919) % 10007}`).join("\n");

  it("a Write that changes 20,000 lines answers within seconds with a summary instead of a diff", async () => {
    await h.put("big.txt", `${lines(20_000, "old")}\n`);
    const state = new ToolState();
    await tool("Read").run({ file_path: "big.txt" }, context(state));
    const started = performance.now();
    const result = String(
      await within(
        10_000,
        "Write",
        tool("Write").run({ file_path: "big.txt", content: `${lines(20_000, "new")}\n` }, context(state)),
      ),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatch(/^Updated big\.txt \(20000 lines, \d+ bytes\)\.\n\n/);
    expect(result).toContain(
      "[The change is too large to show as a diff: lines 1-20000 (20000 lines) replaced by 20000 lines. Read the file to see it.]",
    );
  });

  it("an Edit with replace_all over 20,000 lines does the same", async () => {
    await h.put("many.txt", `${lines(20_000, "x")}\n`);
    const state = new ToolState();
    await tool("Read").run({ file_path: "many.txt" }, context(state));
    const started = performance.now();
    const result = String(
      await within(
        10_000,
        "Edit",
        tool("Edit").run(
          { file_path: "many.txt", old_string: "x line", new_string: "y row", replace_all: true },
          context(state),
        ),
      ),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatch(/^Edited many\.txt \(20000 replacements\)\.\n\n\[The change is too large/);
  });

  it("a small change to a large file still gets its diff", async () => {
    await h.put("large.txt", `${lines(50_000, "keep")}\n`);
    const state = new ToolState();
    await tool("Read").run({ file_path: "large.txt" }, context(state));
    const result = String(
      await tool("Edit").run(
        { file_path: "large.txt", old_string: "keep line 25000 ", new_string: "kept line 25000 " },
        context(state),
      ),
    );
    expect(result).toContain("-keep line 25000 ");
    expect(result).toContain("+kept line 25000 ");
  });
});

describe("issue 10.13: a skill's size is capped", () => {
  it("skips an oversized SKILL.md with a warning, so it never reaches a request", async () => {
    const skills = join(h.root, ".mitsu", "skills");
    await mkdir(join(skills, "huge"), { recursive: true });
    await mkdir(join(skills, "fine"), { recursive: true });
    const body = "Do it.\n".repeat(300_000); // about 2 MB
    await writeFile(join(skills, "huge", "SKILL.md"), `---\nname: huge\ndescription: Huge.\n---\n${body}`);
    await writeFile(join(skills, "fine", "SKILL.md"), "---\nname: fine\ndescription: Fine.\n---\nDo it.\n");
    const found = await discoverSkills({ cwd: h.root, home: h.home, builtinDir: null });
    expect(found.skills.map((skill) => skill.name)).toEqual(["fine"]);
    expect(found.warnings).toEqual([
      expect.objectContaining({
        path: join(skills, "huge", "SKILL.md"),
        skipped: true,
        message: expect.stringContaining("larger than the 256 KiB a skill or command may be"),
      }),
    ]);
  });

  it("a FIFO named SKILL.md does not hang discovery", async () => {
    const folder = join(h.root, ".mitsu", "skills", "pipe");
    await mkdir(folder, { recursive: true });
    mkfifo(join(folder, "SKILL.md"));
    const found = await within(
      5_000,
      "discoverSkills",
      discoverSkills({ cwd: h.root, home: h.home, builtinDir: null }),
    );
    expect(found.skills).toEqual([]);
    expect(found.warnings[0]?.message).toBe("is not a regular file (it is a named pipe (FIFO))");
  });
});
