import { mkdir, mkdtemp, realpath, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createGlobTool } from "./glob-tool.js";
import { Workspace } from "./workspace.js";

let base: string;
let root: string;
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t1",
  state: new ToolState(),
  agentPath: [],
});

async function file(path: string, ageSeconds: number): Promise<void> {
  const full = join(root, path);
  await mkdir(join(full, ".."), { recursive: true });
  await writeFile(full, path);
  const time = new Date(Date.UTC(2024, 0, 1) - ageSeconds * 1000);
  await utimes(full, time, time);
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-glob-")));
  root = join(base, "project");
  await mkdir(root);
  await file("old.ts", 300);
  await file("src/new.ts", 10);
  await file("src/mid.ts", 100);
  await file("node_modules/dep/index.ts", 1);
  await file("src/gen/skip.ts", 1);
  await file("src/gen/keep.ts", 50);
  await file(".git/hooks/x.ts", 1);
  await file(".config/hidden.ts", 200);
  await writeFile(join(root, ".gitignore"), "node_modules\n");
  await writeFile(join(root, "src", "gen", ".gitignore"), "skip.ts\n");
});
afterEach(() => rm(base, { recursive: true, force: true }));

const glob = (maxResults?: number) =>
  createGlobTool({ workspace: new Workspace([root]), ...(maxResults ? { maxResults } : {}) });

describe("Glob", () => {
  it("lists matching files newest first, skipping .git and what .gitignore files ignore", async () => {
    expect(await glob().run({ pattern: "**/*.ts" }, context())).toBe(
      ["src/new.ts", "src/gen/keep.ts", "src/mid.ts", ".config/hidden.ts", "old.ts"].join("\n"),
    );
  });

  it("searches below path, with the pattern relative to it", async () => {
    expect(await glob().run({ pattern: "*.ts", path: "src" }, context())).toBe("src/new.ts\nsrc/mid.ts");
    expect(await glob().run({ pattern: "**/*.ts", path: join(root, "src", "gen") }, context())).toBe(
      "src/gen/keep.ts",
    );
  });

  it("caps the number of results and says so", async () => {
    expect(await glob(2).run({ pattern: "**/*.ts" }, context())).toBe(
      "src/new.ts\nsrc/gen/keep.ts\n[Showing the 2 newest of 5 files. Use a more specific pattern or path to see others.]",
    );
  });

  it("says when nothing matches", async () => {
    expect(await glob().run({ pattern: "**/*.rs" }, context())).toBe("No files found.");
  });

  it("refuses patterns and paths that leave the workspace", async () => {
    await expect(glob().run({ pattern: "../**/*" }, context())).rejects.toThrow(/must be relative/);
    await expect(glob().run({ pattern: "/etc/*" }, context())).rejects.toThrow(/must be relative/);
    await expect(glob().run({ pattern: "*", path: ".." }, context())).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it("does not follow a symbolic link to a folder outside", async () => {
    await mkdir(join(base, "outside"));
    await writeFile(join(base, "outside", "secret.ts"), "");
    await symlink(join(base, "outside"), join(root, "link"));
    expect(await glob().run({ pattern: "**/secret.ts" }, context())).toBe("No files found.");
  });

  it("is read-only, with a schema and a summary", () => {
    expect(glob().readOnly).toBe(true);
    expect(glob().summarize?.({ pattern: "**/*.ts", path: "src" })).toBe("Glob **/*.ts in src");
  });
});
