import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createReadTool } from "./read-tool.js";
import { getReadTracker } from "./read-tracker.js";
import { Workspace } from "./workspace.js";

let base: string;
let root: string;
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t1",
  state: new ToolState(),
  agentPath: [],
});
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-read-")));
  root = join(base, "project");
  await mkdir(root);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const tool = (extra: Partial<Parameters<typeof createReadTool>[0]> = {}) =>
  createReadTool({ workspace: new Workspace([root]), ...extra });

describe("Read", () => {
  it("numbers lines like cat -n and records the read in the run's state", async () => {
    await writeFile(join(root, "a.txt"), "first\nsecond\r\nthird\n");
    const ctx = context();
    const result = await tool().run({ file_path: join(root, "a.txt") }, ctx);
    expect(result).toBe("     1\tfirst\n     2\tsecond\n     3\tthird");
    expect(getReadTracker(ctx.state).has(join(root, "a.txt"))).toBe(true);
  });

  it("ends lines at a lone CR too (classic Mac files), and a CRLF split between two reads is one line end", async () => {
    await writeFile(join(root, "mac.txt"), "first\rsecond\rthird\r");
    expect(await tool().run({ file_path: join(root, "mac.txt") }, context())).toBe(
      "     1\tfirst\n     2\tsecond\n     3\tthird",
    );
    // The stream reads 64 KiB at a time: the CR is the last byte of the first read, the LF the first of the next.
    const lines = `${"x".repeat(63)}\n`.repeat(1023);
    await writeFile(join(root, "split.txt"), `${lines}${"x".repeat(63)}\r\nnext\n`);
    expect(lines.length + 63).toBe(64 * 1024 - 1);
    const split = String(await tool().run({ file_path: join(root, "split.txt") }, context()));
    expect(split.split("\n")).toHaveLength(1025);
    expect(split.endsWith("  1025\tnext")).toBe(true);
  });

  it("reads a window with offset and limit, and says how to read the rest", async () => {
    await writeFile(join(root, "n.txt"), Array.from({ length: 50 }, (_, i) => `l${i + 1}`).join("\n"));
    const result = await tool().run({ file_path: "n.txt", offset: 10, limit: 3 }, context());
    expect(result).toBe(
      "    10\tl10\n    11\tl11\n    12\tl12\n\n[Showing lines 10-12 of 50. To read more, call Read again with offset 13 (and a limit).]",
    );
  });

  it("caps lines by default and cuts long lines", async () => {
    await writeFile(join(root, "big.txt"), `${"x".repeat(50)}\n${"y\n".repeat(20)}`);
    const result = (await tool({ defaultLimit: 5, maxLineChars: 10 }).run(
      { file_path: "big.txt" },
      context(),
    )) as string;
    expect(result.split("\n")[0]).toBe("     1\txxxxxxxxxx… [line cut: 50 characters]");
    expect(result).toContain("Showing lines 1-5 of 21");
    expect(result).toContain("1 line(s) longer than 10 characters were cut");
  });

  it("keeps a result within its character cap", async () => {
    await writeFile(join(root, "wide.txt"), `${"z".repeat(100)}\n`.repeat(100));
    const result = (await tool({ maxChars: 1000 }).run({ file_path: "wide.txt" }, context())) as string;
    expect(result.length).toBeLessThan(1200);
    expect(result).toMatch(/Showing lines 1-\d of 100/);
  });

  it("refuses an offset past the end", async () => {
    await writeFile(join(root, "s.txt"), "one\ntwo\n");
    await expect(tool().run({ file_path: "s.txt", offset: 5 }, context())).rejects.toThrow(
      /has 2 lines; offset 5/,
    );
  });

  it("notes an empty file", async () => {
    await writeFile(join(root, "empty.txt"), "");
    expect(await tool().run({ file_path: "empty.txt" }, context())).toMatch(/exists but is empty/);
  });

  it("refuses a directory and suggests Glob", async () => {
    await mkdir(join(root, "dir"));
    await expect(tool().run({ file_path: "dir" }, context())).rejects.toThrow(/is a directory.*Glob/);
  });

  it("refuses a missing file", async () => {
    await expect(tool().run({ file_path: "nope.txt" }, context())).rejects.toThrow(
      /does not exist: nope\.txt/,
    );
  });

  it("refuses binary files: NUL bytes, or bytes that are not UTF-8", async () => {
    await writeFile(join(root, "a.bin"), Buffer.from([0x41, 0x00, 0x42]));
    await writeFile(join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await expect(tool().run({ file_path: "a.bin" }, context())).rejects.toThrow(
      /binary file \(it contains NUL/,
    );
    await expect(tool().run({ file_path: "latin1.txt" }, context())).rejects.toThrow(/not valid UTF-8/);
  });

  it("reads multi-byte text whose first 8 KiB end mid-character", async () => {
    // "日" spans bytes 8191-8193: the 8 KiB sample ends inside it.
    await writeFile(join(root, "jp.txt"), `${"a\n".repeat(4095)}a日本\n`);
    const result = (await tool().run({ file_path: "jp.txt", offset: 4096 }, context())) as string;
    expect(result).toBe("  4096\ta日本");
  });

  it("returns PNG/JPEG/GIF/WebP as an image block, within a size cap", async () => {
    await writeFile(join(root, "pic.dat"), PNG);
    const result = await tool().run({ file_path: "pic.dat" }, context());
    expect(result).toEqual([
      { type: "text", text: "Image pic.dat (image/png, 16 bytes):" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") } },
    ]);
    await writeFile(join(root, "pic.gif"), Buffer.from("GIF89a......"));
    const gif = (await tool().run({ file_path: "pic.gif" }, context())) as Array<{ type: string }>;
    expect(gif[1]).toMatchObject({ type: "image", source: { media_type: "image/gif" } });
    await expect(tool({ maxImageBytes: 10 }).run({ file_path: "pic.dat" }, context())).rejects.toThrow(
      /image of 16 bytes, larger than the 10 bytes/,
    );
  });

  it("refuses paths outside the workspace, and symbolic links that point out", async () => {
    await writeFile(join(base, "secret.txt"), "secret");
    await symlink(join(base, "secret.txt"), join(root, "link.txt"));
    await expect(tool().run({ file_path: "../secret.txt" }, context())).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(tool().run({ file_path: join(base, "secret.txt") }, context())).rejects.toThrow(
      /Access denied/,
    );
    await expect(tool().run({ file_path: "link.txt" }, context())).rejects.toThrow(/symbolic link/);
  });

  it("is read-only, with a schema and a summary", () => {
    const read = tool();
    expect(read.readOnly).toBe(true);
    expect(read.inputSchema).toMatchObject({ required: ["file_path"] });
    expect(read.summarize?.({ file_path: "src/a.ts" })).toBe("Read src/a.ts");
  });
});
