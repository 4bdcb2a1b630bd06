import { describe, expect, it } from "vitest";
import { MarkdownStream, MarkdownWriter, renderMarkdown } from "../../../src/cli/render/markdown/index.js";

/** Escape sequences the renderer itself writes: SGR and OSC 8 hyperlinks. Anything else came from the text. */
const OWN = /\u001b\[[0-9;]*m|\u001b\]8;;[^\u001b\u0007]*\u001b\\/g;
const foreign = (lines: string[]) =>
  lines
    .join("\n")
    .replace(OWN, "")
    .match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g);

const ATTACKS = [
  "title \u001b]0;pwned\u0007 here",
  "clip \u001b]52;c;ZXZpbA==\u0007 board",
  "move \u001b[2J\u001b[H home",
  "c1 \u009b31m csi",
  "cr\roverwrite",
  "osc8 \u001b]8;;https://evil\u001b\\text\u001b]8;;\u001b\\",
];

describe("Markdown from an untrusted model", () => {
  it("no escape sequence from the text reaches the lines, in any construct, streamed byte by byte", () => {
    for (const attack of ATTACKS) {
      const doc = `# ${attack}\n\n${attack} **${attack}**\n\n- ${attack}\n\n> ${attack}\n\n| ${attack} | b |\n|---|---|\n| ${attack} | 1 |\n\n\`\`\`js\n${attack}\n\`\`\`\n\n[${attack}](https://x.dev)`;
      expect(foreign(renderMarkdown(doc, 60))).toBeNull();
      const stream = new MarkdownStream({ hyperlinks: true });
      for (const c of doc) {
        stream.append(c);
        expect(foreign(stream.render(60))).toBeNull();
      }
      stream.end();
      expect(foreign(stream.render(60))).toBeNull();
    }
  });

  it("a link cannot smuggle a sequence into an OSC 8 target", () => {
    const out = renderMarkdown("[x](https://a.dev/\u0007\u001b]0;t\u0007)", 60, { hyperlinks: true }).join(
      "",
    );
    expect(out.replace(OWN, "")).not.toMatch(/[\u0000-\u001f]/);
  });

  it("bidirectional overrides in code show as escapes", () => {
    const out = renderMarkdown("```\nif (a\u202e) {}\n```", 40, { color: false });
    expect(out).toEqual(["  if (a\\u202e) {}"]);
  });

  it("deep nesting is capped: ten thousand quote markers or bullets neither overflow the stack nor take long", () => {
    for (const doc of [
      `${">".repeat(10_000)} deep`,
      `${"- ".repeat(10_000)}deep`,
      `${"  ".repeat(5_000)}- deep`,
    ]) {
      const started = performance.now();
      const lines = renderMarkdown(doc, 40);
      expect(lines.join("")).toContain("deep");
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });

  it("inline text that makes the lexer quadratic is lexed in pieces: 100 KB in well under a few seconds", () => {
    for (const unit of ["[a](", "*a ", "_a "]) {
      const doc = unit.repeat(Math.ceil(100_000 / unit.length));
      const started = performance.now();
      renderMarkdown(doc, 80);
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });

  it("a table of many columns and rows stays linear", () => {
    const row = (v: string) => `|${` ${v} |`.repeat(500)}\n`;
    const doc = `${row("h")}|${"---|".repeat(500)}\n${row("v").repeat(200)}`;
    const started = performance.now();
    const lines = renderMarkdown(doc, 100);
    expect(lines.length).toBeGreaterThan(200);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("MarkdownWriter", () => {
  it("writes each finished block once, as whole lines, the same lines as the whole document", () => {
    const doc = "# T\n\nPara **one**.\n\n- a\n- b\n\n```js\nconst a = 1;\nconst b = 2;\n```\n\nEnd";
    const written: string[] = [];
    const writer = new MarkdownWriter({ write: (t) => written.push(t), width: 40, color: false });
    for (const c of doc) writer.push(c);
    writer.end();
    expect(written.every((t) => t.endsWith("\n"))).toBe(true);
    expect(written.join("")).toBe(`${renderMarkdown(doc, 40, { color: false }).join("\n")}\n`);
  });

  it("streams an open code block line by line", () => {
    const written: string[] = [];
    const writer = new MarkdownWriter({ write: (t) => written.push(t), width: 40, color: false });
    writer.push("```py\nprint(1)\nprint(2)\npri");
    expect(written.join("")).toBe("  print(1)\n  print(2)\n");
    writer.push("nt(3)\n```\n");
    writer.end();
    expect(written.join("")).toBe("  print(1)\n  print(2)\n  print(3)\n");
  });
});
