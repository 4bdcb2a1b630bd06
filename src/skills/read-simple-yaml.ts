/** Plain text that YAML's core schema would read as something else (null, a boolean, a number), or that a YAML
 * indicator starts: those go to the yaml package. */
const NOT_PLAIN_TEXT =
  /^(?:[-?:,[\]{}#&*!|>'"%@`.+0-9~]|(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$)/;
const KEY_LINE = /^([A-Za-z][\w-]*):(?: +(.*))?$/;
const BLOCK_HEADER = /^([|>])(-?) *$/;
/** Characters YAML treats apart (controls, BOM, line and paragraph separators) and tabs, carriage returns. */
const UNUSUAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ufeff\u2028\u2029]/;

/**
 * The frontmatter that skills and agent files nearly always hold — `key: text` lines, quoted strings, and `|` / `>`
 * blocks of evenly indented lines — read without the yaml package, which costs ~20 ms to load where every session
 * starts (reading the skills). Returns undefined for anything else (lists, nesting, comments, escapes, numbers,
 * blank lines in a block, a repeated key …), which the yaml package then reads. Where it answers, its answer is
 * the yaml package's (a property test holds it to that).
 */
export function readSimpleYaml(source: string): Record<string, unknown> | undefined {
  if (UNUSUAL.test(source)) return undefined;
  const lines = source.split("\n");
  const data: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    i++;
    if (line.trim() === "") continue;
    const match = KEY_LINE.exec(line);
    if (!match) return undefined;
    const key = match[1]!;
    const raw = (match[2] ?? "").trimEnd();
    // A key YAML reads as null or a boolean (`null: a` is the key "") is the yaml package's to read.
    if (Object.hasOwn(data, key) || key === "__proto__" || raw === "" || /^(?:null|true|false)$/i.test(key))
      return undefined;
    const header = BLOCK_HEADER.exec(raw);
    if (header) {
      const block: string[] = [];
      while (i < lines.length && lines[i]!.startsWith(" ")) block.push(lines[i++]!);
      // A blank line after the block may belong to it (chomping, more lines): the yaml package decides.
      if (block.length === 0 || (i < lines.length && lines[i]!.trim() === "")) return undefined;
      const indent = block[0]!.length - block[0]!.trimStart().length;
      const literal = header[1] === "|";
      const texts: string[] = [];
      for (const text of block) {
        if (text.trim() === "") return undefined;
        const own = text.length - text.trimStart().length;
        // Folded lines indented more than the first are kept apart by YAML's folding rules: not read here.
        if (own < indent || (!literal && own > indent)) return undefined;
        texts.push(text.slice(indent));
      }
      data[key] = texts.join(literal ? "\n" : " ") + (header[2] === "-" ? "" : "\n");
      continue;
    }
    // A value continued on an indented line is a multi-line scalar (or a nested node): the yaml package's.
    if (i < lines.length && lines[i]!.startsWith(" ")) return undefined;
    const value = scalar(raw);
    if (value === undefined) return undefined;
    data[key] = value;
  }
  return Object.keys(data).length > 0 ? data : undefined;
}

/** One line's value: a quoted string without escapes, or plain text. */
function scalar(raw: string): string | undefined {
  if (raw.startsWith('"')) return /^"([^"\\]*)"$/.exec(raw)?.[1];
  if (raw.startsWith("'")) return /^'((?:[^']|'')*)'$/.exec(raw)?.[1]?.replaceAll("''", "'");
  if (NOT_PLAIN_TEXT.test(raw) || raw.includes(": ") || raw.includes(" #") || raw.endsWith(":"))
    return undefined;
  return raw;
}
