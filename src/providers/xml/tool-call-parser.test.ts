import { describe, expect, it } from "vitest";
import { type ToolCallToken, XmlToolCallParser } from "./tool-call-parser.js";

/** Parses text fed in the given pieces; adjacent tokens of one kind merged, so splits compare equal. */
function parse(pieces: string[]): ToolCallToken[] {
  const parser = new XmlToolCallParser();
  const tokens = [...pieces.flatMap((p) => parser.push(p)), ...parser.finish()];
  const merged: ToolCallToken[] = [];
  for (const t of tokens) {
    const last = merged[merged.length - 1];
    if (t.type === "text" && last?.type === "text") last.text += t.text;
    else if (t.type === "call-delta" && last?.type === "call-delta") last.text += t.text;
    else merged.push({ ...t });
  }
  return merged;
}

const TEXT =
  'I will read two files. <tool_call name="Read">{"file_path": "/w/a.ts"}</tool_call>\n' +
  '<tool_call name=\'Read\'>{"file_path": "x </tool_c y"}</tool_call> Then <tool_calls> is just text, a < b.';

describe("XmlToolCallParser", () => {
  it("finds calls and text, whatever the split position", () => {
    const expected: ToolCallToken[] = [
      { type: "text", text: "I will read two files. " },
      { type: "call-start", name: "Read", tag: '<tool_call name="Read">' },
      { type: "call-delta", text: '{"file_path": "/w/a.ts"}' },
      { type: "call-end" },
      { type: "text", text: "\n" },
      { type: "call-start", name: "Read", tag: "<tool_call name='Read'>" },
      { type: "call-delta", text: '{"file_path": "x </tool_c y"}' },
      { type: "call-end" },
      { type: "text", text: " Then <tool_calls> is just text, a < b." },
    ];
    expect(parse([TEXT])).toEqual(expected);
    for (let i = 0; i <= TEXT.length; i++) expect(parse([TEXT.slice(0, i), TEXT.slice(i)])).toEqual(expected);
    expect(parse([...TEXT])).toEqual(expected);
  });

  it("never lets a possible tag prefix out as text before it is decided", () => {
    const parser = new XmlToolCallParser();
    expect(parser.push("Hello <tool_c")).toEqual([{ type: "text", text: "Hello " }]);
    expect(parser.push("all")).toEqual([]);
    expect(parser.push(' name="Ls">')).toEqual([
      { type: "call-start", name: "Ls", tag: '<tool_call name="Ls">' },
    ]);
    expect(parser.push("{}</tool_")).toEqual([{ type: "call-delta", text: "{}" }]);
    expect(parser.push("call>ok <")).toEqual([{ type: "call-end" }, { type: "text", text: "ok " }]);
    expect(parser.finish()).toEqual([{ type: "text", text: "<" }]);
  });

  it("reads a self-closing tag as a call without input", () => {
    expect(parse(['<tool_call name="Now"/>'])).toEqual([
      { type: "call-start", name: "Now", tag: '<tool_call name="Now"/>' },
      { type: "call-end" },
    ]);
  });

  it("names a missing name, an unknown attribute and unreadable attributes", () => {
    const [missing] = parse(["<tool_call>{}</tool_call>"]);
    expect(missing).toMatchObject({
      type: "call-start",
      name: "",
      error: expect.stringContaining("has no name"),
    });
    const [unknown] = parse(['<tool_call name="Read" id="1">{}</tool_call>']);
    expect(unknown).toMatchObject({ name: "Read", error: expect.stringContaining('unknown attribute "id"') });
    const [garbled] = parse(["<tool_call name=Read>{}</tool_call>"]);
    expect(garbled).toMatchObject({ error: expect.stringContaining("cannot read the attributes") });
  });

  it("ends an unclosed body or tag with an error at the end of the text", () => {
    expect(parse(['<tool_call name="Read">{"file_path": "/a'])).toEqual([
      { type: "call-start", name: "Read", tag: '<tool_call name="Read">' },
      { type: "call-delta", text: '{"file_path": "/a' },
      { type: "call-end", error: "the call was not closed with </tool_call>" },
    ]);
    const tokens = parse(['text <tool_call name="Re']);
    expect(tokens[0]).toEqual({ type: "text", text: "text " });
    expect(tokens[2]).toMatchObject({ type: "call-end", error: expect.stringContaining("never closed") });
  });

  describe("the XML protocol runs no <tool_call> quoted as Markdown code", () => {
    const CALL = '<tool_call name="Bash">{"command": "rm -rf /"}</tool_call>';
    const everySplit = (text: string, expected: ToolCallToken[]) => {
      expect(parse([text])).toEqual(expected);
      for (let i = 0; i <= text.length; i++)
        expect(parse([text.slice(0, i), text.slice(i)]), `split ${i}`).toEqual(expected);
      expect(parse([...text])).toEqual(expected);
    };

    it("a fenced block (``` or ~~~, info string, indented up to three spaces) is text; a call after it runs", () => {
      for (const [open, close] of [
        ["```xml", "```"],
        ["~~~", "~~~~"],
        ["   ````", "````"],
      ]) {
        const quoted = `Use it like this:\n${open}\n${CALL}\n${close}\n`;
        everySplit(`${quoted}Now: <tool_call name="Ls">{}</tool_call>`, [
          { type: "text", text: `${quoted}Now: ` },
          { type: "call-start", name: "Ls", tag: '<tool_call name="Ls">' },
          { type: "call-delta", text: "{}" },
          { type: "call-end" },
        ]);
      }
    });

    it("a fence is closed only by a run as long, of the same character, at the start of a line", () => {
      const text = `\`\`\`\`\n\`\`\`\n${CALL}\n~~~~\n  x \`\`\`\`\n${CALL}\n\`\`\`\`\n`;
      everySplit(text, [{ type: "text", text }]);
    });

    it("an unclosed fence quotes the rest of the text", () => {
      const text = `\`\`\`\n${CALL}`;
      everySplit(text, [{ type: "text", text }]);
    });

    it("inline code spans (one or more backticks) are text", () => {
      for (const text of [`Write \`${CALL}\` to call.`, `Write \`\`a \` ${CALL}\`\` to call.`]) {
        everySplit(text, [{ type: "text", text }]);
      }
    });

    it("a stray backtick hides nothing past its line; four spaces of indent are not a fence", () => {
      everySplit(`it's a \` tick\n${CALL}`, [
        { type: "text", text: "it's a ` tick\n" },
        { type: "call-start", name: "Bash", tag: '<tool_call name="Bash">' },
        { type: "call-delta", text: '{"command": "rm -rf /"}' },
        { type: "call-end" },
      ]);
      everySplit(`    \`\`\`x\`\`\` ${CALL}`, [
        { type: "text", text: "    ```x``` " },
        { type: "call-start", name: "Bash", tag: '<tool_call name="Bash">' },
        { type: "call-delta", text: '{"command": "rm -rf /"}' },
        { type: "call-end" },
      ]);
    });
  });
});
