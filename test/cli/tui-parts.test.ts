import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { visibleWidth } from "@mariozechner/pi-tui";
import { afterEach, describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { ChatLog } from "../../src/cli/tui/chat-log.js";
import { matchFiles } from "../../src/cli/tui/prompt-autocomplete.js";
import { HISTORY_LIMIT, openPromptHistory } from "../../src/cli/tui/prompt-history.js";
import { QueuedInput } from "../../src/cli/tui/queued-input.js";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-tui-"));
  dirs.push(dir);
  return dir;
};

describe("ChatLog (the conversation on screen)", () => {
  it("wraps every line to the width: no row is ever wider than the screen (/help at 30 columns)", () => {
    const log = new ChatLog();
    log.write(
      `  /compact [focus]  ${"summarise the conversation so far to free the context window ".repeat(3)}\n`,
    );
    log.write("一二三四五六七八九十一二三四五六七八九十\n\tindented\n");
    const rows = log.render(30);
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(30);
  });

  it("a task list redrawn in place replaces the rows above; an erased line is emptied", () => {
    const log = new ChatLog();
    log.write("answer\n● Update todos\n  ☐ one\n");
    log.write("\u001b[2A\r\u001b[0J● Update todos\n  ☒ one\n");
    log.write("half a line\r\u001b[2Kwhole line\n");
    expect(log.render(80)).toEqual(["answer", "● Update todos", "  ☒ one", "whole line"]);
  });

  it("replace shows a range whole (Ctrl-O) and leaves the rest", () => {
    const log = new ChatLog();
    log.write("before\n");
    const from = log.mark;
    log.write("● Bash seq\n  ⎿ … (+36 lines)\n");
    const to = log.mark;
    log.write("after\n");
    expect(log.text(from, to)).toBe("● Bash seq\n  ⎿ … (+36 lines)\n");
    log.replace(from, to, "● Bash seq\n  ⎿ 1\n    2\n");
    expect(log.render(80)).toEqual(["before", "● Bash seq", "  ⎿ 1", "    2", "after"]);
  });
});

describe("the prompt history file", () => {
  it("survives a restart, skips a torn or foreign line and keeps the rest", () => {
    const file = join(tempDir(), "p", "history.jsonl");
    const first = openPromptHistory(file);
    first.add("one");
    first.add("two");
    first.add("two");
    writeFileSync(file, `${readFileSync(file, "utf8")}{"prompt": "tor\n[1,2]\n{"prompt": 3}\n`);
    openPromptHistory(file).add("three");
    expect(openPromptHistory(file).prompts).toEqual(["one", "two", "three"]);
  });

  it("is capped: it keeps the newest prompts and the file is cut back", () => {
    const file = join(tempDir(), "history.jsonl");
    const history = openPromptHistory(file);
    for (let i = 0; i < 2 * HISTORY_LIMIT + 10; i++) history.add(`prompt ${i}`);
    const again = openPromptHistory(file).prompts;
    expect(again).toHaveLength(HISTORY_LIMIT);
    expect(again.at(-1)).toBe(`prompt ${2 * HISTORY_LIMIT + 9}`);
    expect(readFileSync(file, "utf8").trim().split("\n").length).toBeLessThanOrEqual(2 * HISTORY_LIMIT);
  });

  it("cutting back keeps what another mitsu in the same project appended meanwhile", () => {
    const file = join(tempDir(), "history.jsonl");
    const mine = openPromptHistory(file);
    const other = openPromptHistory(file);
    for (let i = 0; i < 2 * HISTORY_LIMIT - 1; i++) mine.add(`mine ${i}`);
    other.add("from the other window");
    mine.add("mine last");
    mine.add("mine after the cut");
    const again = openPromptHistory(file).prompts;
    expect(again).toContain("from the other window");
    expect(again.at(-1)).toBe("mine after the cut");
  });

  it("an unreadable place is an empty history, never an error", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "file"), "");
    const history = openPromptHistory(join(dir, "file", "history.jsonl"));
    expect(history.prompts).toEqual([]);
    expect(() => history.add("x")).not.toThrow();
  });
});

describe("@file completion", () => {
  const files = [
    "README.md",
    "src/cli/main.ts",
    "src/cli/tui/screen.ts",
    "docs/has space.md",
    "test/main.test.ts",
  ];

  it("ranks a path prefix, then a name prefix, then a substring; folders are offered too", () => {
    const values = matchFiles(files, "main").map((item) => item.value);
    expect(values).toEqual(["@src/cli/main.ts", "@test/main.test.ts"]);
    expect(matchFiles(files, "src/cli").map((item) => item.value)).toContain("@src/cli/");
    expect(matchFiles(files, "READ")[0]?.value).toBe("@README.md");
  });

  it("offers no path that an @ could not attach (spaces, quotes)", () => {
    expect(matchFiles(files, "space")).toEqual([]);
  });

  it("offers no file whose name holds control characters (a clone's name could write on the terminal)", () => {
    expect(matchFiles(["evil\u001b]0;pwned\u0007.md", "ok.md"], "").map((item) => item.label)).toEqual([
      "ok.md",
    ]);
  });
});

describe("queued prompts", () => {
  it("shows each by its first line, with a hint, cut to the width; take empties the queue", () => {
    const queued = new QueuedInput(createStyle(false), () => {});
    queued.push("first line\nsecond line");
    queued.push(`x${"y".repeat(200)}`);
    const rows = queued.render(40);
    expect(rows[0]).toBe("⏵ queued: first line (+1 lines)");
    expect(rows.at(-1)).toContain("esc to edit");
    for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(40);
    expect(queued.take()).toHaveLength(2);
    expect(queued.render(40)).toEqual([]);
  });
});

describe("ChatLog wrapping", () => {
  it("a wrapped line keeps its indent (a result's lines stay under the result)", () => {
    const log = new ChatLog();
    log.write(`  ⎿ ${"word ".repeat(8)}\n    ${"more ".repeat(8)}\n`);
    const rows = log.render(24);
    expect(rows[0]?.startsWith("  ⎿ word")).toBe(true);
    expect(rows[1]?.startsWith("    word")).toBe(true);
    expect(rows.find((r) => r.includes("more"))?.startsWith("    more")).toBe(true);
    expect(rows.filter((r) => r.includes("more")).every((r) => r.startsWith("    more"))).toBe(true);
  });
});

describe("/help at a narrow terminal", () => {
  it("a command's description wraps under itself, never past the width", () => {
    const log = new ChatLog();
    log.write("  /compact [focus]  summarise the conversation so far to free the context window\n");
    const rows = log.render(40);
    expect(rows[0]).toBe("  /compact [focus]  summarise the");
    for (const row of rows.slice(1)) expect(row.startsWith(" ".repeat(20))).toBe(true);
    for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(40);
  });
});
