import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createEditTool } from "./edit-tool.js";
import type { FileAccess } from "./file-access.js";
import { createReadTool } from "./read-tool.js";
import { Workspace } from "./workspace.js";
import { createWriteTool } from "./write-tool.js";

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "mitsu-files-")));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** An editor whose buffers shadow the disk; it saves what it writes, as Zed does. */
function editor() {
  const buffers = new Map<string, string>();
  const calls: string[] = [];
  const files: FileAccess = {
    async readText(path) {
      calls.push(`read ${path}`);
      return buffers.get(path) ?? readFile(path, "utf8");
    },
    async writeText(path, content) {
      calls.push(`write ${path}`);
      buffers.set(path, content);
      await writeFile(path, content);
    },
  };
  return { buffers, calls, files };
}

describe("FileAccess: Read, Write and Edit through an editor", () => {
  it("Read sees the buffer; Edit matches and writes the buffer; Write creates through the editor", async () => {
    const { buffers, calls, files } = editor();
    const workspace = new Workspace([root]);
    const state = new ToolState();
    const context: ToolContext = {
      signal: new AbortController().signal,
      toolUseId: "t",
      state,
      agentPath: [],
    };
    const file = join(root, "a.txt");
    await writeFile(file, "on disk\n");
    buffers.set(file, "in the buffer\n");
    const read = createReadTool({ workspace, files });
    const edit = createEditTool({ workspace, files });
    const write = createWriteTool({ workspace, files });
    expect(await read.run({ file_path: file }, context)).toContain("in the buffer");
    await edit.run({ file_path: file, old_string: "the buffer", new_string: "the editor" }, context);
    expect(buffers.get(file)).toBe("in the editor\n");
    // A second Edit after the first: the read tracker saw the editor's save.
    await edit.run({ file_path: file, old_string: "editor", new_string: "panel" }, context);
    expect(await readFile(file, "utf8")).toBe("in the panel\n");
    const created = join(root, "new.txt");
    expect(await write.run({ file_path: created, content: "new\n" }, context)).toContain("Created");
    expect(buffers.get(created)).toBe("new\n");
    // Outside the workspace nothing reaches the editor.
    await expect(read.run({ file_path: "/etc/hostname" }, context)).rejects.toThrow(/outside the workspace/);
    expect(calls.every((call) => call.includes(root))).toBe(true);
  });

  it("an editor that fails is a tool error for the model, and nothing is written", async () => {
    const workspace = new Workspace([root]);
    const files: FileAccess = {
      readText: async () => {
        throw new Error("no such buffer");
      },
      writeText: async () => {
        throw new Error("read-only buffer");
      },
    };
    const context: ToolContext = {
      signal: new AbortController().signal,
      toolUseId: "t",
      state: new ToolState(),
      agentPath: [],
    };
    const file = join(root, "b.txt");
    await writeFile(file, "text\n");
    await expect(createReadTool({ workspace, files }).run({ file_path: file }, context)).rejects.toThrow(
      /through the editor: no such buffer/,
    );
    await expect(
      createWriteTool({ workspace, files }).run({ file_path: join(root, "c.txt"), content: "x" }, context),
    ).rejects.toThrow(/through the editor: read-only buffer/);
  });
});
