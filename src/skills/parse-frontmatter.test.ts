import { describe, expect, it } from "vitest";
import { normalizeText, parseFrontmatter } from "./parse-frontmatter.js";

describe("parseFrontmatter", () => {
  it("splits the YAML mapping from the body", () => {
    const result = parseFrontmatter("---\nname: deploy\ndescription: Deploy it\n---\n\n# Steps\n1. go\n");
    expect(result).toEqual({
      ok: true,
      data: { name: "deploy", description: "Deploy it" },
      body: "# Steps\n1. go",
      hasFrontmatter: true,
      repaired: [],
    });
  });

  it("treats a file without frontmatter as all body", () => {
    const result = parseFrontmatter("Deploy to $ARGUMENTS\n");
    expect(result).toMatchObject({ ok: true, data: {}, body: "Deploy to $ARGUMENTS", hasFrontmatter: false });
  });

  it("reads CRLF line ends and a BOM as if they were not there", () => {
    const result = parseFrontmatter("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nline 1\r\nline 2\r\n");
    expect(result).toMatchObject({ ok: true, data: { name: "a", description: "b" }, body: "line 1\nline 2" });
    expect(normalizeText("a\rb\r\nc")).toBe("a\nb\nc");
  });

  it("accepts folded and literal block descriptions", () => {
    const folded = parseFrontmatter("---\ndescription: >\n  one\n  two\n---\n");
    const literal = parseFrontmatter("---\ndescription: |\n  one\n  two\n---\n");
    expect(folded).toMatchObject({ ok: true, data: { description: "one two\n" } });
    expect(literal).toMatchObject({ ok: true, data: { description: "one\ntwo\n" } });
  });

  it("names the field and the file line of invalid YAML", () => {
    const result = parseFrontmatter("---\nname: a\nmetadata: {x: 1\n---\nbody");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.field).toBe("metadata");
    expect(result.message).toMatch(/^invalid YAML at line 3, column \d+: /);
  });

  it("reports a duplicate key as invalid YAML", () => {
    const result = parseFrontmatter("---\nname: a\nname: b\n---\n");
    expect(result).toMatchObject({ ok: false, field: "name" });
  });

  it("rejects an unterminated frontmatter and one that is not a mapping", () => {
    expect(parseFrontmatter("---\nname: a\nbody")).toMatchObject({ ok: false, field: "frontmatter" });
    expect(parseFrontmatter("---\n- a\n- b\n---\n")).toMatchObject({
      ok: false,
      field: "frontmatter",
      message: expect.stringContaining("got a list"),
    });
  });

  it("reads an unquoted text value with ': ' as plain text and says which field", () => {
    const result = parseFrontmatter("---\nname: a\ndescription: Use when: the user asks\n---\n");
    expect(result).toMatchObject({
      ok: true,
      data: { name: "a", description: "Use when: the user asks" },
      repaired: ["description"],
    });
  });

  it("reads Claude Code's `argument-hint: [a] [b]` as text", () => {
    const result = parseFrontmatter("---\nargument-hint: [pr-number] [priority]\n---\n");
    expect(result).toMatchObject({ ok: true, data: { "argument-hint": "[pr-number] [priority]" } });
  });

  it("reads a description written over many unquoted lines, as Claude Code's own plugin agents write it", () => {
    // The shape of anthropics/claude-code's plugin-dev and pr-review-toolkit agents (text written anew).
    const text = [
      "---",
      "name: helper",
      'description: Use this agent when the user asks to "build a thing". Examples:',
      "",
      "<example>",
      "Context: The user wants a thing",
      'user: "Build me a thing"',
      'assistant: "I will use the helper agent."',
      "</example>",
      "model: inherit",
      "color: green",
      "tools:",
      "  - Read",
      "  - Grep",
      "---",
      "You help.",
    ].join("\n");
    const result = parseFrontmatter(text);
    expect(result).toMatchObject({
      ok: true,
      data: { name: "helper", model: "inherit", color: "green", tools: ["Read", "Grep"] },
      repaired: ["description"],
    });
    if (!result.ok) return;
    expect(result.data.description).toBe(
      'Use this agent when the user asks to "build a thing". Examples:\n\n<example>\nContext: The user wants a thing\nuser: "Build me a thing"\nassistant: "I will use the helper agent."\n</example>',
    );
  });

  it("does not paper over broken YAML in other fields", () => {
    const result = parseFrontmatter("---\ndescription: Use when: x\nmetadata: [1\n---\n");
    expect(result.ok).toBe(false);
  });

  it("reads an empty frontmatter as no fields", () => {
    expect(parseFrontmatter("---\n---\nbody")).toMatchObject({
      ok: true,
      data: {},
      body: "body",
      hasFrontmatter: true,
    });
  });
});
