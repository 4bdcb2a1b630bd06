import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createEditTool } from "./edit-tool.js";
import { createReadTool } from "./read-tool.js";
import { Workspace } from "./workspace.js";

let base: string;
let root: string;
let ctx: ToolContext;
const SOURCE = "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n";

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-edit-")));
  root = join(base, "project");
  await mkdir(root);
  await writeFile(join(root, "math.js"), SOURCE);
  ctx = { signal: new AbortController().signal, toolUseId: "t1", state: new ToolState(), agentPath: [] };
});
afterEach(() => rm(base, { recursive: true, force: true }));

const workspace = () => new Workspace([root]);
const edit = () => createEditTool({ workspace: workspace() });
const readFirst = (path = "math.js") =>
  createReadTool({ workspace: workspace() }).run({ file_path: path }, ctx);

describe("Edit", () => {
  it("replaces one exact match and returns a unified diff", async () => {
    await readFirst();
    const result = await edit().run(
      { file_path: "math.js", old_string: "return a + b;", new_string: "return b + a;" },
      ctx,
    );
    expect(result).toBe(
      [
        "Edited math.js (1 replacement).",
        "",
        "--- a/math.js",
        "+++ b/math.js",
        "@@ -1,5 +1,5 @@",
        " function add(a, b) {",
        "-  return a + b;",
        "+  return b + a;",
        " }",
        " ",
        " function sub(a, b) {",
        "",
      ].join("\n"),
    );
    expect(await readFile(join(root, "math.js"), "utf8")).toBe(SOURCE.replace("a + b", "b + a"));
  });

  it("refuses a file that was not Read, leaving it unchanged", async () => {
    await expect(
      edit().run({ file_path: "math.js", old_string: "a + b", new_string: "b + a" }, ctx),
    ).rejects.toThrow(/not been Read/);
    expect(await readFile(join(root, "math.js"), "utf8")).toBe(SOURCE);
  });

  it("refuses several matches unless replace_all, naming their lines", async () => {
    await readFirst();
    await expect(
      edit().run({ file_path: "math.js", old_string: "(a, b)", new_string: "(x, y)" }, ctx),
    ).rejects.toThrow(/matches 2 times in math\.js \(at lines 1, 5\).*replace_all/);
    const result = await edit().run(
      { file_path: "math.js", old_string: "(a, b)", new_string: "(x, y)", replace_all: true },
      ctx,
    );
    expect(result).toMatch(/^Edited math\.js \(2 replacements\)/);
    expect(await readFile(join(root, "math.js"), "utf8")).toBe(SOURCE.replaceAll("(a, b)", "(x, y)"));
  });

  it("shows the nearest candidate lines for a near miss", async () => {
    await readFirst();
    const error = await edit()
      .run({ file_path: "math.js", old_string: "  return a * b;", new_string: "x" }, ctx)
      .catch((e: Error) => e);
    expect(String(error)).toContain("old_string was not found in math.js");
    expect(String(error)).toContain("most similar to the first line");
    expect(String(error)).toContain("     2\t  return a + b;");
    expect(String(error)).toContain("     6\t  return a - b;");
  });

  it("points out a match that differs only in whitespace", async () => {
    await readFirst();
    const error = await edit()
      .run(
        { file_path: "math.js", old_string: "function sub(a, b) {\n    return a - b;", new_string: "x" },
        ctx,
      )
      .catch((e: Error) => e);
    expect(String(error)).toContain("differs only in whitespace");
    expect(String(error)).toContain("lines 5-6");
    expect(String(error)).toContain("     6\t  return a - b;");
  });

  it("keeps $ patterns in new_string literally", async () => {
    await readFirst();
    await edit().run({ file_path: "math.js", old_string: "a - b", new_string: "$& $1 $$" }, ctx);
    expect(await readFile(join(root, "math.js"), "utf8")).toContain("return $& $1 $$;");
  });

  it("matches multi-line text in a CRLF file and keeps its line endings", async () => {
    await writeFile(join(root, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    await readFirst("win.txt");
    await edit().run({ file_path: "win.txt", old_string: "one\ntwo", new_string: "uno\ndos" }, ctx);
    expect(await readFile(join(root, "win.txt"), "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("refuses a no-op edit, a missing file, and an empty old_string on an existing file", async () => {
    await readFirst();
    await expect(edit().run({ file_path: "math.js", old_string: "a", new_string: "a" }, ctx)).rejects.toThrow(
      /same/,
    );
    await expect(edit().run({ file_path: "none.js", old_string: "a", new_string: "b" }, ctx)).rejects.toThrow(
      /does not exist: none\.js\. Use Write/,
    );
    await expect(edit().run({ file_path: "math.js", old_string: "", new_string: "b" }, ctx)).rejects.toThrow(
      /old_string is empty/,
    );
  });

  it("creates a new file from an empty old_string", async () => {
    const result = await edit().run({ file_path: "new/n.txt", old_string: "", new_string: "hello\n" }, ctx);
    expect(result).toContain("Created new/n.txt.");
    expect(result).toContain("+hello");
    expect(await readFile(join(root, "new", "n.txt"), "utf8")).toBe("hello\n");
  });

  it("refuses a file changed on disk since it was Read", async () => {
    await readFirst();
    await writeFile(join(root, "math.js"), `${SOURCE}// more\n`);
    await expect(
      edit().run({ file_path: "math.js", old_string: "a + b", new_string: "b + a" }, ctx),
    ).rejects.toThrow(/changed on disk/);
  });

  it("refuses paths outside the workspace and symbolic links that point out", async () => {
    await writeFile(join(base, "out.js"), "a + b");
    await symlink(join(base, "out.js"), join(root, "link.js"));
    await expect(
      edit().run({ file_path: "../out.js", old_string: "a", new_string: "b" }, ctx),
    ).rejects.toThrow(/outside the workspace/);
    await expect(edit().run({ file_path: "link.js", old_string: "a", new_string: "b" }, ctx)).rejects.toThrow(
      /symbolic link/,
    );
    expect(await readFile(join(base, "out.js"), "utf8")).toBe("a + b");
  });

  it("refuses a file that is not valid UTF-8 beyond Read's sniff window instead of corrupting its bytes", async () => {
    // Text for Read's 8 KiB sniff, then a Latin-1 "é" (0xE9): decoding as UTF-8 would turn it into U+FFFD.
    const bytes = Buffer.concat([
      Buffer.from(`${"x".repeat(9000)}\nname = "caf`),
      Buffer.from([0xe9]),
      Buffer.from('"\nold\n'),
    ]);
    await writeFile(join(root, "latin1.txt"), bytes);
    await readFirst("latin1.txt");
    await expect(
      edit().run({ file_path: "latin1.txt", old_string: "old", new_string: "new" }, ctx),
    ).rejects.toThrow(/not valid UTF-8/);
    expect(Buffer.compare(await readFile(join(root, "latin1.txt")), bytes)).toBe(0);
  });

  it("keeps a UTF-8 byte order mark and CRLF line ends", async () => {
    await writeFile(join(root, "bom.txt"), "\uFEFFfirst\r\nsecond\r\n");
    await readFirst("bom.txt");
    await edit().run({ file_path: "bom.txt", old_string: "first\nsecond", new_string: "one\ntwo" }, ctx);
    expect(await readFile(join(root, "bom.txt"), "utf8")).toBe("\uFEFFone\r\ntwo\r\n");
  });

  it("streams its input eagerly, has a schema and a summary", () => {
    const tool = edit();
    expect(tool.eagerInputStreaming).toBe(true);
    expect(tool.inputSchema).toMatchObject({ required: ["file_path", "old_string", "new_string"] });
    expect(tool.summarize?.({ file_path: "x.ts", old_string: "", new_string: "" })).toBe("Edit x.ts");
  });
});
