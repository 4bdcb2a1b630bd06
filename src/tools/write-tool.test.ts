import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createReadTool } from "./read-tool.js";
import { Workspace } from "./workspace.js";
import { createWriteTool } from "./write-tool.js";

let base: string;
let root: string;
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t1",
  state: new ToolState(),
  agentPath: [],
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-write-")));
  root = join(base, "project");
  await mkdir(root);
});
afterEach(() => rm(base, { recursive: true, force: true }));

function tools() {
  const workspace = new Workspace([root]);
  return { read: createReadTool({ workspace }), write: createWriteTool({ workspace }) };
}

describe("Write", () => {
  it("creates a file and its parent folders", async () => {
    const result = await tools().write.run({ file_path: "a/b/c.txt", content: "hi\nthere\n" }, context());
    expect(result).toBe("Created a/b/c.txt (2 lines, 9 bytes).");
    expect(await readFile(join(root, "a", "b", "c.txt"), "utf8")).toBe("hi\nthere\n");
  });

  it("refuses to overwrite a file that was not Read in this run, and leaves it as it was", async () => {
    await writeFile(join(root, "f.txt"), "original");
    await expect(tools().write.run({ file_path: "f.txt", content: "new" }, context())).rejects.toThrow(
      /has not been Read in this session/,
    );
    expect(await readFile(join(root, "f.txt"), "utf8")).toBe("original");
  });

  it("overwrites after a Read, shows a diff, keeps the mode and leaves no temporary file", async () => {
    const path = join(root, "run.sh");
    await writeFile(path, "echo one\n");
    await chmod(path, 0o751);
    const { read, write } = tools();
    const ctx = context();
    await read.run({ file_path: path }, ctx);
    const result = (await write.run({ file_path: path, content: "echo two\n" }, ctx)) as string;
    expect(result).toContain("Updated run.sh (1 line, 9 bytes).");
    expect(result).toContain("-echo one\n+echo two");
    expect(await readFile(path, "utf8")).toBe("echo two\n");
    expect((await stat(path)).mode & 0o777).toBe(0o751);
    expect(await readdir(root)).toEqual(["run.sh"]);
    // Its own write counts as seen: a second write needs no new Read.
    await write.run({ file_path: path, content: "echo three\n" }, ctx);
    expect(await readFile(path, "utf8")).toBe("echo three\n");
  });

  it("needs a new Read in a new run (the record lives in the run's state)", async () => {
    await writeFile(join(root, "f.txt"), "v1");
    const { read, write } = tools();
    await read.run({ file_path: "f.txt" }, context());
    await expect(write.run({ file_path: "f.txt", content: "v2" }, context())).rejects.toThrow(
      /not been Read/,
    );
  });

  it("refuses a file that changed on disk since it was Read", async () => {
    const path = join(root, "f.txt");
    await writeFile(path, "v1");
    const { read, write } = tools();
    const ctx = context();
    await read.run({ file_path: path }, ctx);
    await writeFile(path, "changed by the user");
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    await expect(write.run({ file_path: path, content: "v2" }, ctx)).rejects.toThrow(/changed on disk/);
    expect(await readFile(path, "utf8")).toBe("changed by the user");
  });

  it("refuses paths outside the workspace, and writes through a symlinked folder that points out", async () => {
    const outside = join(base, "outside");
    await mkdir(outside);
    await symlink(outside, join(root, "linkdir"));
    const { write } = tools();
    await expect(write.run({ file_path: "../escape.txt", content: "x" }, context())).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(write.run({ file_path: join(outside, "abs.txt"), content: "x" }, context())).rejects.toThrow(
      /Access denied/,
    );
    await expect(write.run({ file_path: "linkdir/new/file.txt", content: "x" }, context())).rejects.toThrow(
      /outside the workspace/,
    );
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(base)).toEqual(["outside", "project"]);
  });

  it("writes through a symbolic link inside the workspace to its target, keeping the link", async () => {
    await writeFile(join(root, "real.txt"), "old");
    await symlink(join(root, "real.txt"), join(root, "alias.txt"));
    const { read, write } = tools();
    const ctx = context();
    await read.run({ file_path: "alias.txt" }, ctx);
    await write.run({ file_path: "alias.txt", content: "new" }, ctx);
    expect(await readFile(join(root, "real.txt"), "utf8")).toBe("new");
    expect((await stat(join(root, "alias.txt"))).isFile()).toBe(true);
  });

  it("streams its input eagerly, has a schema and a summary", () => {
    const { write } = tools();
    expect(write.eagerInputStreaming).toBe(true);
    expect(write.readOnly).toBeUndefined();
    expect(write.inputSchema).toMatchObject({ required: ["file_path", "content"] });
    expect(write.summarize?.({ file_path: "x.ts", content: "" })).toBe("Write x.ts");
  });
});
