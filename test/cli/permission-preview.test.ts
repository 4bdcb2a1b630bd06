import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { permissionPreview, readPreviewFile } from "../../src/cli/tui/permission-preview.js";

const plain = createStyle(false);
const colour = createStyle(true);
const cwd = "/work/project";
const ESC = "\u001b";

/** Every escape sequence in `lines` is one of the style's own (SGR colours), never one from the text shown. */
function onlyOwnEscapes(lines: string[]): boolean {
  return lines.every(
    (line) => line.replace(/\u001b\[\d+m/g, "").match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/) === null,
  );
}

const file = (content: string) => ({ path: `${cwd}/src/a.ts`, exists: true as const, content });
const numbered = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("Edit preview", () => {
  it("is a diff with the real line numbers of the file, old and new, and three lines of context", () => {
    const preview = permissionPreview(
      {
        toolName: "Edit",
        input: { file_path: "src/a.ts", old_string: "line 50\n", new_string: "line fifty\nline 50b\n" },
        display: "Edit(src/a.ts)",
      },
      { cwd, style: plain, file: file(numbered(100)) },
    );
    expect(preview.title).toBe("Edit file src/a.ts");
    expect(preview.lines(80)).toEqual([
      "47 47   line 47",
      "48 48   line 48",
      "49 49   line 49",
      "50    - line 50",
      "   50 + line fifty",
      "   51 + line 50b",
      "51 52   line 51",
      "52 53   line 52",
      "53 54   line 53",
    ]);
  });

  it("colours added lines green and removed lines red", () => {
    const lines = permissionPreview(
      { toolName: "Edit", input: { file_path: "src/a.ts", old_string: "b", new_string: "c" }, display: "" },
      { cwd, style: colour, file: file("a\nb\n") },
    ).lines(80);
    expect(lines).toContain(`${ESC}[2m2  ${ESC}[22m ${ESC}[31m- b${ESC}[39m`);
    expect(lines).toContain(`${ESC}[2m  2${ESC}[22m ${ESC}[32m+ c${ESC}[39m`);
  });

  it("shows hunks far apart with a gap between them (replace_all)", () => {
    const content = `x\n${numbered(20)}x\n`;
    const lines = permissionPreview(
      {
        toolName: "Edit",
        input: { file_path: "src/a.ts", old_string: "x", new_string: "y", replace_all: true },
        display: "",
      },
      { cwd, style: plain, file: file(content) },
    ).lines(80);
    expect(lines[0]).toBe("every occurrence is replaced");
    expect(lines).toContain(" 1    - x");
    expect(lines).toContain("    1 + y");
    expect(lines).toContain("   ⋮");
    expect(lines).toContain("22    - x");
    expect(lines).toContain("   22 + y");
  });

  it("cuts a long diff with the number of lines left out, and every line to the width", () => {
    const lines = permissionPreview(
      {
        toolName: "Write",
        input: { file_path: "src/a.ts", content: numbered(200).replace(/line/g, "changed line") },
        display: "",
      },
      { cwd, style: plain, file: file(numbered(200)), maxLines: 10 },
    ).lines(24);
    expect(lines).toHaveLength(10);
    expect(lines[9]).toMatch(/^… \d+ more lines$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(24);
    expect(lines[0]).toBe("  1     - line 1");
  });

  it("a CRLF file is diffed without showing the carriage returns", () => {
    const lines = permissionPreview(
      {
        toolName: "Edit",
        input: { file_path: "src/a.ts", old_string: "b\n", new_string: "c\n" },
        display: "",
      },
      { cwd, style: plain, file: file("a\r\nb\r\n") },
    ).lines(80);
    expect(lines).toEqual(["1 1   a", "2   - b", "  2 + c"]);
  });

  it("when the file no longer holds old_string, the strings themselves are shown", () => {
    const lines = permissionPreview(
      {
        toolName: "Edit",
        input: { file_path: "src/a.ts", old_string: "gone", new_string: "new" },
        display: "",
      },
      { cwd, style: plain, file: file("a\n") },
    ).lines(80);
    expect(lines).toEqual(["old_string is not in the file as it is now; the change:", "- gone", "+ new"]);
  });
});

describe("Write preview", () => {
  it("a new file shows its first lines, numbered", () => {
    const preview = permissionPreview(
      {
        toolName: "Write",
        input: { file_path: "/work/project/notes.md", content: numbered(50) },
        display: "",
      },
      { cwd, style: plain, file: { path: `${cwd}/notes.md`, exists: false }, maxLines: 4 },
    );
    expect(preview.title).toBe("Create file notes.md");
    expect(preview.lines(80)).toEqual([" 1 + line 1", " 2 + line 2", " 3 + line 3", "… 47 more lines"]);
  });

  it("an existing file shows the diff against its current content", () => {
    const preview = permissionPreview(
      { toolName: "Write", input: { file_path: "src/a.ts", content: "a\nB\nc\n" }, display: "" },
      { cwd, style: plain, file: file("a\nb\nc\n") },
    );
    expect(preview.title).toBe("Overwrite file src/a.ts");
    expect(preview.lines(80)).toEqual(["1 1   a", "2   - b", "  2 + B", "3 3   c"]);
  });

  it("a path outside the working folder is shown whole", () => {
    const preview = permissionPreview(
      { toolName: "Write", input: { file_path: "/etc/x.conf", content: "" }, display: "" },
      { cwd, style: plain, file: { path: "/etc/x.conf", exists: false } },
    );
    expect(preview.title).toBe("Create file /etc/x.conf");
    expect(preview.lines(80)).toEqual(["(an empty file)"]);
  });
});

describe("Bash preview", () => {
  it("shows every line of the command and its description", () => {
    const preview = permissionPreview(
      {
        toolName: "Bash",
        input: { command: "for i in 1 2 3; do\n  echo $i\ndone", description: "Counts to three" },
        display: "",
      },
      { cwd, style: plain },
    );
    expect(preview.title).toBe("Bash command");
    expect(preview.lines(80)).toEqual(["  for i in 1 2 3; do", "    echo $i", "  done", "Counts to three"]);
  });

  it("wraps a long command instead of cutting it: every character is seen", () => {
    const command = `echo ${"x".repeat(100)}`;
    const lines = permissionPreview(
      { toolName: "Bash", input: { command }, display: "" },
      { cwd, style: plain },
    ).lines(40);
    expect(lines.map((line) => line.slice(2)).join("")).toBe(command);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
  });

  it("a very long command keeps its first and last lines, and says how many are not shown", () => {
    const command = `cat <<'EOF' > notes.txt\n${Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n")}\nEOF\nrm -rf ~/important`;
    const lines = permissionPreview(
      { toolName: "Bash", input: { command }, display: "" },
      { cwd, style: plain, maxLines: 12 },
    ).lines(80);
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe("  cat <<'EOF' > notes.txt");
    expect(lines).toContain("  … 42 more lines not shown");
    expect(lines.at(-1)).toBe("  rm -rf ~/important");
  });

  it("escapes control characters and escape sequences from the model: none reaches the terminal", () => {
    const command = "echo safe\u001b[2K\rrm -rf ~ \u001b]0;title\u0007 \u202e \u009b31m";
    const lines = permissionPreview(
      { toolName: "Bash", input: { command, description: "\u001b[8mhidden" }, display: "" },
      { cwd, style: colour },
    ).lines(200);
    expect(onlyOwnEscapes(lines)).toBe(true);
    expect(lines[0]).toContain("echo safe\\x1b[2K\\rrm -rf ~ \\x1b]0;title\\x07 \\u202e \\x9b31m");
    expect(lines[1]).toContain("\\x1b[8mhidden");
  });

  it("shows characters that would be invisible, so the command seen is the command run", () => {
    const lines = permissionPreview(
      { toolName: "Bash", input: { command: "rm -rf /tmp/a\u200b /\ufeffetc \u00ad" }, display: "" },
      { cwd, style: plain },
    ).lines(80);
    expect(lines).toEqual(["  rm -rf /tmp/a\\u200b /\\ufeffetc \\u00ad"]);
  });

  it("says when the command runs in the background", () => {
    const lines = permissionPreview(
      { toolName: "Bash", input: { command: "npm run dev", run_in_background: true }, display: "" },
      { cwd, style: plain },
    ).lines(80);
    expect(lines).toEqual(["  npm run dev", "runs in the background"]);
  });
});

describe("other tools", () => {
  it("WebFetch shows the host in the title and the whole URL", () => {
    const preview = permissionPreview(
      {
        toolName: "WebFetch",
        input: { url: "https://docs.example.com/a?b=1", prompt: "Find the API" },
        display: "",
      },
      { cwd, style: plain },
    );
    expect(preview.title).toBe("Fetch docs.example.com");
    expect(preview.lines(80)).toEqual(["  https://docs.example.com/a?b=1", "Find the API"]);
  });

  it("an MCP tool shows its server, its name and the arguments as compact JSON, escaped", () => {
    const preview = permissionPreview(
      {
        toolName: "mcp__github__create_issue",
        input: { title: "Bug\u001b[31m", labels: ["a"] },
        display: "",
      },
      { cwd, style: colour },
    );
    expect(preview.title).toBe("MCP tool create_issue (server github)");
    const lines = preview.lines(80);
    expect(lines).toEqual(['  {"title":"Bug\\u001b[31m","labels":["a"]}']);
    expect(onlyOwnEscapes(lines)).toBe(true);
  });

  it("any other tool shows what it states about the call", () => {
    const preview = permissionPreview(
      {
        toolName: "NotebookEdit",
        input: {},
        display: "NotebookEdit(nb.ipynb)",
        facts: { paths: [{ path: "nb.ipynb", access: "write" }] },
      },
      { cwd, style: plain },
    );
    expect(preview.title).toBe("NotebookEdit");
    expect(preview.lines(80)).toEqual(["  writes nb.ipynb"]);
    const bare = permissionPreview(
      { toolName: "Custom", input: {}, display: "Custom(x)" },
      { cwd, style: plain },
    );
    expect(bare.lines(80)).toEqual(["  Custom(x)"]);
  });

  it("a title from the model is escaped too", () => {
    const preview = permissionPreview(
      { toolName: "Write", input: { file_path: "a\u001b[2Jb.txt", content: "x" }, display: "" },
      { cwd, style: plain, file: { path: "x", exists: false } },
    );
    expect(preview.title).toBe("Create file a\\x1b[2Jb.txt");
  });
});

describe("readPreviewFile", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mitsu-preview-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("reads the file an Edit or Write would change, relative to the working folder", async () => {
    await writeFile(join(dir, "a.txt"), "hello\n");
    expect(await readPreviewFile({ toolName: "Edit", input: { file_path: "a.txt" } }, dir)).toEqual({
      path: join(dir, "a.txt"),
      exists: true,
      content: "hello\n",
    });
    expect(await readPreviewFile({ toolName: "Write", input: { file_path: "new.txt" } }, dir)).toEqual({
      path: join(dir, "new.txt"),
      exists: false,
    });
    expect(await readPreviewFile({ toolName: "Bash", input: { command: "ls" } }, dir)).toBeUndefined();
  });

  it("does not hang on a FIFO, and names a binary file instead of showing it", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dir, "fifo")]);
    const fifo = await readPreviewFile({ toolName: "Write", input: { file_path: "fifo" } }, dir);
    expect(fifo).toMatchObject({ exists: true, unreadable: expect.stringContaining("not a regular file") });
    await writeFile(join(dir, "bin"), Buffer.from([0, 1, 2, 255]));
    const binary = await readPreviewFile({ toolName: "Write", input: { file_path: "bin" } }, dir);
    expect(binary).toMatchObject({ exists: true, unreadable: expect.any(String) });
  });
});
