import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createGrepTool } from "./grep-tool.js";
import { Workspace } from "./workspace.js";

let base: string;
let root: string;
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t1",
  state: new ToolState(),
  agentPath: [],
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-grep-")));
  root = join(base, "project");
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await mkdir(join(root, "build"));
  await writeFile(join(root, ".gitignore"), "build/\n");
  await writeFile(join(root, "src", "a.ts"), "const alpha = 1;\nexport function Alpha() {}\n// tail\n");
  await writeFile(join(root, "src", "deep", "b.py"), "alpha = 2\nbeta = 3\n");
  await writeFile(join(root, "build", "out.js"), "alpha in build output\n");
  await writeFile(join(root, "README.md"), "-x flag and alpha\n");
  await writeFile(join(base, "outside.txt"), "alpha outside\n");
});
afterEach(() => rm(base, { recursive: true, force: true }));

const grep = (extra: Partial<Parameters<typeof createGrepTool>[0]> = {}) =>
  createGrepTool({ workspace: new Workspace([root]), ...extra });

describe("Grep", () => {
  it("lists matching files by default, relative to the working folder, skipping gitignored ones", async () => {
    expect(await grep().run({ pattern: "alpha" }, context())).toBe(
      "Found 3 files:\nREADME.md\nsrc/a.ts\nsrc/deep/b.py",
    );
  });

  it("shows matching lines with line numbers, case-insensitively, with context", async () => {
    expect(await grep().run({ pattern: "^export", path: "src", output_mode: "content" }, context())).toBe(
      "src/a.ts:2:export function Alpha() {}",
    );
    expect(
      await grep().run(
        { pattern: "ALPHA", path: "src/a.ts", output_mode: "content", "-i": true, "-A": 1 },
        context(),
      ),
    ).toBe("src/a.ts:1:const alpha = 1;\nsrc/a.ts:2:export function Alpha() {}\nsrc/a.ts-3-// tail");
    expect(
      await grep().run({ pattern: "beta", output_mode: "content", "-n": false, "-B": 1 }, context()),
    ).toBe("src/deep/b.py-alpha = 2\nsrc/deep/b.py:beta = 3");
  });

  it("counts matches per file", async () => {
    expect(await grep().run({ pattern: "alpha", output_mode: "count", "-i": true }, context())).toBe(
      "README.md:1\nsrc/a.ts:2\nsrc/deep/b.py:1",
    );
  });

  it("filters by glob and by type, and honours head_limit", async () => {
    expect(await grep().run({ pattern: "alpha", glob: "*.py" }, context())).toBe(
      "Found 1 file:\nsrc/deep/b.py",
    );
    expect(await grep().run({ pattern: "alpha", type: "ts" }, context())).toBe("Found 1 file:\nsrc/a.ts");
    expect(await grep().run({ pattern: "alpha", head_limit: 1 }, context())).toBe(
      "Found 3 files:\nREADME.md\n\n[Showing the first 1 of 3 lines (head_limit).]",
    );
  });

  it("passes the pattern as an argument, never through a shell", async () => {
    expect(await grep().run({ pattern: "-x flag" }, context())).toBe("Found 1 file:\nREADME.md");
    expect(await grep().run({ pattern: "$(touch pwned)" }, context())).toBe("No matches found.");
    expect(await readdir(root)).not.toContain("pwned");
  });

  it("caps its output and says how to narrow it", async () => {
    await writeFile(join(root, "many.txt"), "alpha\n".repeat(5000));
    const result = (await grep({ maxChars: 500 }).run(
      { pattern: "alpha", output_mode: "content" },
      context(),
    )) as string;
    expect(result.length).toBeLessThan(700);
    expect(result).toMatch(/Output cut at 500 characters \(\d+ more lines\)\. Narrow the search/);
  });

  it("reports no matches, and a bad regular expression clearly", async () => {
    expect(await grep().run({ pattern: "zzz_nothing" }, context())).toBe("No matches found.");
    await expect(grep().run({ pattern: "a(" }, context())).rejects.toThrow(
      /ripgrep failed \(exit code 2\).*regex/s,
    );
  });

  it("refuses a path outside the workspace", async () => {
    await expect(grep().run({ pattern: "alpha", path: ".." }, context())).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(
      grep().run({ pattern: "alpha", path: join(base, "outside.txt") }, context()),
    ).rejects.toThrow(/Access denied/);
  });

  it("says clearly when the ripgrep binary is missing", async () => {
    await expect(
      grep({ rgPath: join(base, "missing", "rg") }).run({ pattern: "alpha" }, context()),
    ).rejects.toThrow(/ripgrep binary .*missing.*is missing or not executable/);
  });

  it("is read-only, with a schema and a summary", () => {
    const tool = grep();
    expect(tool.readOnly).toBe(true);
    expect(tool.inputSchema).toMatchObject({ required: ["pattern"] });
    expect(tool.summarize?.({ pattern: "foo", path: "src" })).toBe('Grep "foo" in src');
  });
});
