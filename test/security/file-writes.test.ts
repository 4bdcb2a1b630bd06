import { spawn } from "node:child_process";
import { chmod, chown, link, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool, ToolContext } from "../../src/loop/tool.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { createBuiltinTools } from "../../src/tools/create-builtin-tools.js";
import { call, calls, E2eHarness } from "../e2e/e2e-harness.js";

// Issue 10, "Data": what Write and Edit do to the files they touch. Each case pins a bug found in review:
// lost parallel edits (7), writes that a racing symbolic link redirected outside the workspace (8), and
// replaced inodes: read-only files overwritten, owners and hard links lost (9).

let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

const isRoot = process.getuid?.() === 0;

function context(state = new ToolState()): ToolContext {
  return { signal: new AbortController().signal, toolUseId: "t", state, agentPath: [] };
}

function tool(tools: Tool<never>[], name: string): Tool<Record<string, unknown>> {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no ${name} tool`);
  return found as unknown as Tool<Record<string, unknown>>;
}

/** Every file below `folder`, as paths relative to it. */
async function walk(folder: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const rel = join(prefix, entry.name);
    found.push(rel);
    if (entry.isDirectory()) found.push(...(await walk(join(folder, entry.name), rel)));
  }
  return found;
}

describe("issue 10.7: parallel Edits of one file", () => {
  const SOURCE = ["alpha = 1", "beta = 2", "gamma = 3", ""].join("\n");

  it("three Edits of different parts in one turn all land, each reported truthfully (10 runs)", async () => {
    for (let run = 0; run < 10; run++) {
      const file = `config-${run}.py`;
      await h.put(file, SOURCE);
      const before = h.sim.requests.length;
      await h.run([
        calls(call(`read-${run}`, "Read", { file_path: file })),
        calls(
          call(`a-${run}`, "Edit", { file_path: file, old_string: "alpha = 1", new_string: "alpha = 10" }),
          call(`b-${run}`, "Edit", { file_path: file, old_string: "beta = 2", new_string: "beta = 20" }),
          call(`c-${run}`, "Edit", { file_path: file, old_string: "gamma = 3", new_string: "gamma = 30" }),
        ),
      ]);
      expect(h.sim.requests.length).toBe(before + 3);
      expect(await h.text(file)).toBe(["alpha = 10", "beta = 20", "gamma = 30", ""].join("\n"));
      for (const [id, line] of [
        ["a", "alpha"],
        ["b", "beta"],
        ["c", "gamma"],
      ] as const) {
        const sent = h.sent(`${id}-${run}`);
        expect(sent.is_error, `run ${run}, edit ${id}`).toBeUndefined();
        expect(h.sentText(`${id}-${run}`)).toMatch(new RegExp(`^Edited ${file} \\(1 replacement\\)`));
        expect(h.sentText(`${id}-${run}`)).toContain(`+${line} = `);
      }
    }
  });

  it("of two Edits of the same text, one lands and the other says the file changed; none is lost unreported", async () => {
    await h.put("pick.txt", "colour = red\n");
    await h.run([
      calls(call("read", "Read", { file_path: "pick.txt" })),
      calls(
        call("blue", "Edit", { file_path: "pick.txt", old_string: "red", new_string: "blue" }),
        call("green", "Edit", { file_path: "pick.txt", old_string: "red", new_string: "green" }),
      ),
    ]);
    const outcomes = ["blue", "green"].map((id) => ({ id, error: h.sent(id).is_error === true }));
    const won = outcomes.filter((outcome) => !outcome.error);
    expect(won).toHaveLength(1);
    const lost = outcomes.find((outcome) => outcome.error);
    expect(await h.text("pick.txt")).toBe(`colour = ${won[0]?.id}\n`);
    expect(h.sentText(lost?.id ?? "")).toContain("old_string was not found in pick.txt.");
    expect(h.sentText(lost?.id ?? "")).toContain("The file changed since you last Read it");
  });

  it("an Edit and a Write of one file in one turn: both results describe what is on disk", async () => {
    await h.put("both.txt", "one\ntwo\n");
    await h.run([
      calls(call("read", "Read", { file_path: "both.txt" })),
      calls(
        call("edit", "Edit", { file_path: "both.txt", old_string: "two", new_string: "TWO" }),
        call("write", "Write", { file_path: "both.txt", content: "three\n" }),
      ),
    ]);
    // They ran one after the other, in either order; whichever ran second says truthfully what it found.
    expect(await h.text("both.txt")).toBe("three\n");
    if (h.sent("edit").is_error) {
      expect(h.sentText("edit")).toContain("The file changed since you last Read it");
    } else {
      expect(h.sentText("write")).toContain("-TWO");
    }
  });
});

describe("issue 10.8: a symbolic link swapped in during writes", () => {
  it("never lands a write outside the workspace and leaves no temporary file (2,000 racing Writes)", async () => {
    const write = tool(h.tools, "Write");
    await h.put("d/keep.txt", "inside\n");
    // A separate process swaps the folder d for a link to the outside folder and back, as fast as it can:
    // d moves aside, a link takes its name, the link goes, d comes back. A step that fails (a Write may create
    // d again while it is away) is skipped.
    const swapper = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("fs"); const [d, saved, outside] = process.argv.slice(1);
         const attempt = (step) => { try { step(); return true; } catch { return false; } };
         for (let n = 0, end = Date.now() + 30000; Date.now() < end; n++) {
           if (!attempt(() => fs.renameSync(d, saved + n))) continue;
           if (attempt(() => fs.symlinkSync(outside, d))) attempt(() => fs.unlinkSync(d));
           attempt(() => fs.renameSync(saved + n, d));
         }`,
        h.path("d"),
        h.path("d-saved-"),
        h.outside,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise((resolve) => swapper.once("exit", resolve));
    const started = performance.now();
    const created: string[] = [];
    try {
      let next = 0;
      const worker = async () => {
        while (next < 2000) {
          const i = next++;
          const result = await write
            .run({ file_path: `d/f-${i}.txt`, content: `write ${i}\n` }, context())
            .catch((error: Error) => error);
          if (typeof result === "string") {
            expect(result).toMatch(/^Created d\/f-\d+\.txt/);
            created.push(`f-${i}.txt`);
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    } finally {
      swapper.kill("SIGKILL");
      await exited;
    }
    const elapsed = performance.now() - started;

    expect(await walk(h.outside)).toEqual([]);
    const inside = await walk(h.root);
    expect(inside.filter((path) => /mitsu-(tmp|old)/.test(path))).toEqual([]);
    // Every write reported as done is in the workspace (in d, or in d where the swapper left it aside).
    expect(created.length).toBeGreaterThan(0);
    const byName = new Map(inside.map((path) => [path.split("/").at(-1), path]));
    for (const name of created) {
      const at = byName.get(name);
      expect(at, name).toBeDefined();
      expect(await readFile(join(h.root, at ?? ""), "utf8")).toBe(`write ${name.slice(2, -4)}\n`);
    }
    expect(elapsed).toBeLessThan(15_000);
  }, 30_000);

  it("refuses a folder on the way that is a link to outside, created or not", async () => {
    await symlink(h.outside, h.path("out-link"));
    const write = tool(h.tools, "Write");
    await expect(write.run({ file_path: "out-link/new/x.txt", content: "x" }, context())).rejects.toThrow(
      /outside the workspace/,
    );
    expect(await walk(h.outside)).toEqual([]);
  });
});

describe("issue 10.9: Write and Edit keep the file they change", () => {
  it("refuses a read-only (0444) file, even when running as root, and leaves it as it was", async () => {
    const path = await h.put("locked.txt", "frozen\n");
    await chmod(path, 0o444);
    await h.run([
      calls(call("read", "Read", { file_path: "locked.txt" })),
      calls(call("write", "Write", { file_path: "locked.txt", content: "thawed\n" })),
      calls(call("edit", "Edit", { file_path: "locked.txt", old_string: "frozen", new_string: "thawed" })),
    ]);
    for (const id of ["write", "edit"]) {
      expect(h.sent(id).is_error).toBe(true);
      expect(h.sentText(id)).toContain("locked.txt: it is read-only (mode 0444)");
    }
    expect(await h.text("locked.txt")).toBe("frozen\n");
    expect((await stat(path)).mode & 0o777).toBe(0o444);
  });

  it("refuses to create a file in a read-only folder", async () => {
    await h.put("ro/existing.txt", "x");
    await chmod(h.path("ro"), 0o555);
    try {
      await h.run([calls(call("new", "Write", { file_path: "ro/new.txt", content: "y" }))]);
      expect(h.sent("new").is_error).toBe(true);
      expect(h.sentText("new")).toContain("read-only");
      expect(h.exists("ro/new.txt")).toBe(false);
    } finally {
      await chmod(h.path("ro"), 0o755);
    }
  });

  it.skipIf(!isRoot)("keeps the owner, group and mode of a file it replaces", async () => {
    const path = await h.put("owned.sh", "echo one\n");
    await chown(path, 1234, 2345);
    await chmod(path, 0o4751);
    await h.run([
      calls(call("read", "Read", { file_path: "owned.sh" })),
      calls(call("edit", "Edit", { file_path: "owned.sh", old_string: "one", new_string: "two" })),
    ]);
    expect(h.sent("edit").is_error).toBeUndefined();
    const after = await stat(path);
    expect(await h.text("owned.sh")).toBe("echo two\n");
    expect({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }).toEqual({
      uid: 1234,
      gid: 2345,
      mode: 0o4751,
    });
  });

  it("writes in place when the file has another hard link, so both names see the change", async () => {
    const path = await h.put("shared.txt", "v1\n");
    await link(path, h.path("alias.txt"));
    const inode = (await stat(path)).ino;
    await h.run([
      calls(call("read", "Read", { file_path: "shared.txt" })),
      calls(call("edit", "Edit", { file_path: "shared.txt", old_string: "v1", new_string: "v2" })),
      calls(call("write", "Write", { file_path: "shared.txt", content: "v3\nmore\n" })),
    ]);
    expect(h.sent("edit").is_error).toBeUndefined();
    expect(h.sentText("edit")).toContain("other hard link(s) see the change");
    expect(h.sent("write").is_error).toBeUndefined();
    expect(await h.text("alias.txt")).toBe("v3\nmore\n");
    const after = await stat(path);
    expect(after.ino).toBe(inode);
    expect(after.nlink).toBe(2);
  });

  it("a tool set made apart from the harness shares the same per-file lock", async () => {
    // Two tool sets over one folder (a sub-agent's and the main agent's): their Edits still take turns.
    const other = createBuiltinTools({ cwd: h.root, tempDir: join(h.base, "tmp2") }) as Tool<never>[];
    await writeFile(h.path("two.txt"), "a\nb\n");
    const states = [new ToolState(), new ToolState()];
    await tool(h.tools, "Read").run({ file_path: "two.txt" }, context(states[0]));
    await tool(other, "Read").run({ file_path: "two.txt" }, context(states[1]));
    const results = await Promise.allSettled([
      tool(h.tools, "Edit").run(
        { file_path: "two.txt", old_string: "a", new_string: "A" },
        context(states[0]),
      ),
      tool(other, "Edit").run({ file_path: "two.txt", old_string: "b", new_string: "B" }, context(states[1])),
    ]);
    // The second to run sees a file changed by someone it did not see: it refuses rather than lose the first.
    const text = await h.text("two.txt");
    const fulfilled = results.filter((r) => r.status === "fulfilled").length;
    if (fulfilled === 2) expect(text).toBe("A\nB\n");
    else {
      expect(fulfilled).toBe(1);
      expect(["A\nb\n", "a\nB\n"]).toContain(text);
      const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(String(rejected.reason)).toMatch(/changed on disk since you last Read it/);
    }
  });
});
