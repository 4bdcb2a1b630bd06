import { mkdir, mkdtemp, readFile, realpath, rename, rm, symlink } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderSet } from "../../fs/folder-set.js";
import type { ToolContext } from "../../loop/tool.js";
import { ToolState } from "../../loop/tool-state.js";
import { createBashTool } from "../../tools/bash-tool.js";
import { sandboxCapability } from "./sandbox.js";

// The sandbox reads the workspace folders at each command: one added mid-session is writable from the next
// command on, one removed is not, and one swapped for a link after it was added is not bound at all.
// Needs bubblewrap, as src/tools/sandbox.test.ts does.

let base: string;
let work: string;
let other: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-sandbox-live-")));
  work = join(base, "work");
  other = join(base, "other");
  await mkdir(work);
  await mkdir(other);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t",
  state: new ToolState(),
  agentPath: [],
});

describe("the sandbox's writable folders follow the live folder set", () => {
  it("added: writable from the next command; removed: read-only again; swapped for a link: not bound", async () => {
    const folders = new FolderSet(work, homedir());
    const sandbox = sandboxCapability({ enabled: true }, true, { cwd: work, home: homedir(), folders });
    await sandbox.start?.({ cwd: work, home: homedir(), env: {}, trusted: true, warn: () => {} });
    const bash = createBashTool({
      cwd: work,
      outputDir: join(base, "out"),
      env: { PATH: process.env.PATH, HOME: homedir() },
      ...(sandbox.options ? { sandbox: sandbox.options } : {}),
    });
    const run = async (command: string) => {
      const out = await bash.run({ command }, context());
      return typeof out === "string" ? out : JSON.stringify(out);
    };
    expect(sandbox.options).toBeDefined();
    expect(await run(`echo a > ${other}/a.txt; echo "rc=$?"`)).toContain("rc=1");
    await folders.add(other);
    expect(await run(`echo b > ${other}/b.txt; echo "rc=$?"`)).toContain("rc=0");
    expect(await readFile(join(other, "b.txt"), "utf8")).toBe("b\n");
    await folders.remove(other);
    expect(await run(`echo c > ${other}/c.txt; echo "rc=$?"`)).toContain("rc=1");
    // Added again, then replaced by a link to a folder never added.
    await folders.add(other);
    const elsewhere = join(base, "elsewhere");
    await mkdir(elsewhere);
    await rename(other, join(base, "other-old"));
    await symlink(elsewhere, other);
    // Bound as the link's target, the other folder would be writable, by either name.
    expect(await run(`echo d > ${elsewhere}/d.txt; echo "rc=$?"`)).toContain("rc=1");
    expect(await run(`echo d > ${other}/d.txt; echo "rc=$?"`)).toContain("rc=1");
    await expect(readFile(join(elsewhere, "d.txt"), "utf8")).rejects.toThrow(/ENOENT/);
  });
});
