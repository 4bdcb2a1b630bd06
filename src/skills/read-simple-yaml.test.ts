import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { readSimpleYaml } from "./read-simple-yaml.js";

/** What the yaml package reads, as parseFrontmatter asks it; undefined when it reports an error. */
function yamlReads(source: string): unknown {
  const doc = parseDocument(source, { uniqueKeys: true });
  return doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: 100 });
}

/** Text made of what YAML gives meaning to, so that the generated lines hit the edges of the fast path. */
const piece = fc.constantFrom(
  "a",
  "Bash(git:*)",
  " ",
  "  ",
  ":",
  ": ",
  "#",
  " #",
  "'",
  "''",
  '"',
  "\\",
  "-",
  "|",
  ">",
  "[",
  "{",
  "0",
  "1.5",
  ".",
  "~",
  "null",
  "true",
  "yes",
  "é",
  "\t",
  "*",
  "&",
  "!",
  "%",
  "@",
  "?",
  ",",
);
const text = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(""));
const key = fc.constantFrom(
  "name",
  "description",
  "argument-hint",
  "model",
  "allowed-tools",
  "x_y",
  "null",
  "True",
  "FALSE",
);
const indent = fc.constantFrom("", " ", "  ", "   ");
const line = fc.oneof(
  fc.tuple(key, text).map(([k, v]) => `${k}: ${v}`),
  fc.tuple(key, fc.constantFrom("|", "|-", ">", ">-", "|+", ">2", "| #c")).map(([k, h]) => `${k}: ${h}`),
  fc.tuple(indent, text).map(([i, v]) => `${i}${v}`),
  fc.tuple(key, text).map(([k, v]) => `${k}: "${v}"`),
  fc.tuple(key, text).map(([k, v]) => `${k}: '${v}'`),
  fc.constant(""),
  fc.constant("# a comment"),
);

/** Whole fields: one-line values, and blocks whose lines are mostly (not always) evenly indented. */
const field = fc.oneof(
  fc.tuple(key, text).map(([k, v]) => `${k}: ${v}`),
  fc
    .tuple(
      key,
      fc.constantFrom("|", "|-", ">", ">-"),
      fc.array(fc.tuple(fc.constantFrom("  ", "  ", "  ", "   ", " "), text), { minLength: 1, maxLength: 4 }),
    )
    .map(([k, header, body]) => [`${k}: ${header}`, ...body.map(([i, t]) => i + t)].join("\n")),
);

describe("readSimpleYaml", () => {
  it("reads what the yaml package reads, wherever it answers", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const source = lines.join("\n");
        const simple = readSimpleYaml(source);
        if (simple !== undefined) expect(simple).toEqual(yamlReads(source));
      }),
      { numRuns: 20_000 },
    );
  });

  it("reads blocks as the yaml package does", () => {
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 4 }), (fields) => {
        const source = fields.join("\n");
        const simple = readSimpleYaml(source);
        if (simple !== undefined) expect(simple).toEqual(yamlReads(source));
      }),
      { numRuns: 20_000 },
    );
  });

  it("answers for the frontmatter of the shipped skills (so a session starts without loading yaml)", () => {
    const skills = join(import.meta.dirname, "..", "..", "skills");
    const names = readdirSync(skills);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const text = readFileSync(join(skills, name, "SKILL.md"), "utf8");
      const frontmatter = text.split("\n---\n")[0]!.replace(/^---\n/, "");
      const simple = readSimpleYaml(frontmatter);
      expect(simple, name).toBeDefined();
      expect(simple).toEqual(yamlReads(frontmatter));
    }
  });

  it("leaves lists, nesting, numbers, comments and escapes to the yaml package", () => {
    for (const source of [
      "tools:\n  - Read",
      "tools:\n- Read",
      "a: [x, y]",
      "a:\n  b: c",
      "a: 1",
      "a: x # note",
      'a: "tab\\there"',
      "a: x\n  continued",
      "a: |\n  x\n\n  y",
      "a: >\n  x\n    y",
      "a: x\na: y",
      "a: null",
    ]) {
      expect(readSimpleYaml(source), source).toBeUndefined();
    }
  });
});
