import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { MarkdownStream, renderMarkdown } from "../../../src/cli/render/markdown/index.js";

/** The lines as a person reads them: styles taken out, trailing spaces kept visible by the join. */
const plain = (text: string, width = 60) =>
  renderMarkdown(text, width).map((l) => stripVTControlCharacters(l));
const styled = (text: string, width = 60) => renderMarkdown(text, width).join("\n");

describe("renderMarkdown: each construct", () => {
  it("headings lose their marks and are bold; without colour the marks stay", () => {
    expect(plain("# Summary\n\n## Next")).toEqual(["Summary", "", "Next"]);
    expect(styled("# Summary")).toContain("\u001b[1m");
    expect(renderMarkdown("## Next", 40, { color: false })).toEqual(["## Next"]);
  });

  it("bold, italic, strikethrough and code spans are styled, their markers gone", () => {
    const out = styled("a **b** *c* ~~d~~ `e`");
    expect(stripVTControlCharacters(out)).toBe("a b c d e");
    expect(out).toContain("\u001b[1mb\u001b[22m");
    expect(out).toContain("\u001b[3mc\u001b[23m");
    expect(out).toContain("\u001b[9md\u001b[29m");
    expect(out).toContain("\u001b[36me\u001b[39m");
  });

  it("links show their text and a dim URL; an autolink its URL once", () => {
    expect(plain("see [docs](https://x.dev/a) now")).toEqual(["see docs (https://x.dev/a) now"]);
    expect(plain("<https://x.dev>")).toEqual(["https://x.dev"]);
    expect(styled("[d](https://x.dev)")).toContain("\u001b[2m (https://x.dev)\u001b[22m");
  });

  it("hyperlinks (OSC 8) only when asked, and only for http(s) and mailto targets", () => {
    expect(styled("[d](https://x.dev)")).not.toContain("\u001b]8;");
    const linked = renderMarkdown("[d](https://x.dev) [e](javascript:alert(1))", 60, {
      hyperlinks: true,
    }).join("");
    expect(linked).toContain("\u001b]8;;https://x.dev\u001b\\");
    expect(linked).not.toContain("javascript:alert(1)\u001b\\");
  });

  it("unordered, ordered, nested and task lists", () => {
    expect(plain("- a\n- b\n  - c\n    - d\n\n3. x\n4. y\n\n- [ ] todo\n- [x] done")).toEqual([
      "• a",
      "• b",
      "  ◦ c",
      "    ▪ d",
      "",
      "3. x",
      "4. y",
      "",
      "☐ todo",
      "☑ done",
    ]);
  });

  it("list items wrap under their text, not under the bullet", () => {
    expect(plain("- one two three four five six", 14)).toEqual(["• one two", "  three four", "  five six"]);
    expect(plain("9. a\n10. b")).toEqual([" 9. a", "10. b"]);
  });

  it("block quotes get a bar, not `>`", () => {
    expect(plain("> quoted text\n> more")).toEqual(["│ quoted text", "│ more"]);
    expect(plain("> a\n>\n> > b")).toEqual(["│ a", "│", "│ │ b"]);
  });

  it("horizontal rules span the width", () => {
    expect(plain("a\n\n---\n\nb", 10)).toEqual(["a", "", "──────────", "", "b"]);
  });

  it("tables are drawn with box characters, columns by display width, aligned", () => {
    expect(plain("| a | b |\n|:--|--:|\n| 日本 | 1 |\n| x | 22 |")).toEqual([
      "┌──────┬────┐",
      "│ a    │  b │",
      "├──────┼────┤",
      "│ 日本 │  1 │",
      "│ x    │ 22 │",
      "└──────┴────┘",
    ]);
  });

  it("a table too wide wraps its cells; one with too many columns turns vertical", () => {
    const wide = plain("| k | text |\n|---|---|\n| a | one two three four five six seven |", 20);
    expect(wide).toEqual([
      "┌───┬──────────────┐",
      "│ k │ text         │",
      "├───┼──────────────┤",
      "│ a │ one two      │",
      "│   │ three four   │",
      "│   │ five six     │",
      "│   │ seven        │",
      "└───┴──────────────┘",
    ]);
    const columns = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const many = `| ${columns.join(" | ")} |\n|${"---|".repeat(12)}\n| ${columns.map((_, i) => `v${i}`).join(" | ")} |`;
    const vertical = plain(many, 30);
    expect(vertical[0]).toBe("c0: v0");
    expect(vertical).toContain("c11: v11");
  });

  it("fenced code is highlighted by its language and indented; unknown languages stay plain", () => {
    const out = renderMarkdown("```ts\nconst x = 'a';\n```", 40);
    expect(out.map((l) => stripVTControlCharacters(l))).toEqual(["  const x = 'a';"]);
    expect(out[0]).toContain("\u001b[35mconst\u001b[39m");
    expect(out[0]).toContain("\u001b[32m'a'\u001b[39m");
    expect(renderMarkdown("```nosuchlang\nconst x\n```", 40)).toEqual(["  const x"]);
  });

  it("long code lines continue on the next row; tabs become spaces", () => {
    expect(plain("```\nabcdefghij\n\tx\n```", 8)).toEqual(["  abcdef", "  ghij", "      x"]);
  });

  it("wraps by display width: CJK breaks between characters, emoji count two cells", () => {
    expect(plain("日本語の文章です", 8)).toEqual(["日本語の", "文章です"]);
    expect(plain("😀😀😀 ok", 6)).toEqual(["😀😀😀", "ok"]);
    expect(plain("a verylongwordthatdoesnotfit end", 10)).toEqual([
      "a verylong",
      "wordthatdo",
      "esnotfit",
      "end",
    ]);
  });

  it("soft line breaks stay line breaks (an answer's lines are meant as lines)", () => {
    expect(plain("one\ntwo")).toEqual(["one", "two"]);
  });

  it("HTML entities are decoded, and an entity that names a control character yields none", () => {
    expect(plain("a &amp; b &lt;c&gt; &#8212; &#27;[31mred")).toEqual(["a & b <c> — red"]);
  });
});

describe("MarkdownStream as a component", () => {
  it("renders the open block as it grows and caches finished blocks per width", () => {
    const stream = new MarkdownStream({ color: false });
    stream.append("# Ti");
    expect(stream.render(20)).toEqual(["# Ti"]);
    stream.append("tle\n\nSome **bo");
    expect(stream.render(20)).toEqual(["# Title", "", "Some **bo"]);
    stream.append("ld** text");
    expect(stream.render(20)).toEqual(["# Title", "", "Some bold text"]);
    expect(stream.render(6)).toEqual(["#", "Title", "", "Some", "bold", "text"]);
    stream.end();
    expect(stream.render(20)).toEqual(["# Title", "", "Some bold text"]);
  });
});
