import { lazyRequire } from "../fs/lazy-require.js";
import { readSimpleYaml } from "./read-simple-yaml.js";

const yaml = lazyRequire<typeof import("yaml")>("yaml");

export type FrontmatterResult =
  | {
      ok: true;
      /** The frontmatter mapping; `{}` when the file has none or it is empty. */
      data: Record<string, unknown>;
      /** The markdown after the frontmatter, without leading blank lines or trailing whitespace. */
      body: string;
      hasFrontmatter: boolean;
      /** Fields whose unquoted single-line value was not valid YAML and was read as plain text instead. */
      repaired: string[];
    }
  | {
      ok: false;
      /** The field at fault when the error points at one, else `frontmatter`. */
      field: string;
      message: string;
    };

/**
 * Fields whose value is always plain text. When the YAML fails and such a field's value is unquoted on one line
 * (`description: Use when: the user asks`, `argument-hint: [env] [tag]` as Claude Code's docs write it), the
 * value is quoted and the YAML read again — files in the wild are written that way and a user expects them to load.
 */
const TEXT_FIELDS = new Set([
  "name",
  "description",
  "argument-hint",
  "model",
  "license",
  "compatibility",
  "allowed-tools",
]);

/** Strips a UTF-8 BOM and turns CRLF / CR line ends into LF: both are common in the wild and mean nothing. */
export function normalizeText(text: string): string {
  const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return withoutBom.replace(/\r\n?/g, "\n");
}

/**
 * Splits `---`-delimited YAML frontmatter from a markdown file and parses it with the `yaml` package.
 * Never throws: invalid YAML, an unterminated block or a frontmatter that is not a mapping come back as
 * `{ ok: false }` with the field and the file line at fault.
 */
export function parseFrontmatter(text: string): FrontmatterResult {
  const normalized = normalizeText(text);
  const lines = normalized.split("\n");
  if (lines[0]?.trimEnd() !== "---") {
    return { ok: true, data: {}, body: trimBody(normalized), hasFrontmatter: false, repaired: [] };
  }
  const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."));
  if (end < 0) {
    return { ok: false, field: "frontmatter", message: "the opening `---` has no closing `---` line" };
  }
  // `description: {{DESCRIPTION}}` (a template's placeholder) would read as a YAML mapping: it is text.
  const yamlLines = lines.slice(1, end).map(quoteTemplate);
  const body = trimBody(lines.slice(end + 1).join("\n"));

  // Most frontmatter is a few `key: text` lines: read without loading the yaml package (see readSimpleYaml).
  const source = yamlLines.join("\n");
  const simple = readSimpleYaml(source);
  if (simple) return mappingOrError(simple, body, []);
  const first = readYaml(source);
  if (first.ok) return mappingOrError(first.value, body, []);

  const repaired: string[] = [];
  const quoted = yamlLines.map((line) => {
    const match = /^([A-Za-z][\w-]*):[ \t]+(\S.*)$/.exec(line);
    const key = match?.[1];
    const value = match?.[2]?.trimEnd();
    if (key === undefined || value === undefined || !TEXT_FIELDS.has(key)) return line;
    if (/^["'|>&*!]/.test(value) || readYaml(line).ok) return line;
    // A bracket opens a YAML list or mapping; only the hint is commonly written `[a] [b]` and meant as text.
    if (/^[[{]/.test(value) && key !== "argument-hint") return line;
    repaired.push(key);
    return `${key}: '${value.replaceAll("'", "''")}'`;
  });
  if (repaired.length > 0) {
    const second = readYaml(quoted.join("\n"));
    if (second.ok) return mappingOrError(second.value, body, repaired);
  }
  // Claude Code's own agent files write a description over many unquoted lines (`<example>`, `user: "…"`):
  // read the known fields line by line, the lines that start no known field continuing the text before them.
  const lenient = readLenient(yamlLines);
  if (lenient) return mappingOrError(lenient.data, body, lenient.repaired);

  // Report the first error against the file's own line numbers (the frontmatter starts on line 2).
  const line = first.line;
  const key = line === undefined ? undefined : fieldAt(yamlLines, line - 1);
  const where =
    line === undefined ? "" : ` at line ${line + 1}${first.col === undefined ? "" : `, column ${first.col}`}`;
  return { ok: false, field: key ?? "frontmatter", message: `invalid YAML${where}: ${first.message}` };
}

/** The fields of skills, commands and agents that a lenient read recognises at the start of a line. */
const KNOWN_FIELDS = new Set([
  ...TEXT_FIELDS,
  "tools",
  "disallowedTools",
  "color",
  "permissionMode",
  "disable-model-invocation",
  "user-invocable",
  "arguments",
  "skills",
]);

/** Structured fields: a line starting with one of these is never prose, so the lenient read gives up. */
const STRUCTURED_FIELDS = new Set(["metadata", "hooks", "mcpServers", "allowed_tools"]);

/**
 * A last-chance read of frontmatter YAML rejects: each line that starts with a known field (`description:`) starts
 * that field; any other line continues the text field before it (joined with newlines); `- item` lines after a
 * field with no value make a list. Undefined when a line fits none of these (the YAML error is then reported).
 */
function readLenient(lines: string[]): { data: Record<string, unknown>; repaired: string[] } | undefined {
  const data: Record<string, unknown> = {};
  const repaired: string[] = [];
  let current: string | undefined;
  for (const line of lines) {
    const field = /^([A-Za-z][\w-]*):(?:[ \t]+(.*))?$/.exec(line);
    if (field && STRUCTURED_FIELDS.has(field[1]!)) return undefined;
    if (field && KNOWN_FIELDS.has(field[1]!)) {
      if (field[1]! in data) return undefined; // a field written twice is an error, as YAML says
      current = field[1]!;
      const value = (field[2] ?? "").trim();
      const unquoted = /^(["'])(.*)\1$/.exec(value)?.[2];
      data[current] =
        value === "" ? undefined : (unquoted ?? (/^(true|false)$/.test(value) ? value === "true" : value));
      continue;
    }
    if (current === undefined) {
      if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
      return undefined;
    }
    const item = /^\s*-\s+(.*)$/.exec(line);
    const value = data[current];
    if (item && (value === undefined || Array.isArray(value))) {
      data[current] = [...((value as string[] | undefined) ?? []), item[1]!.trim()];
      continue;
    }
    // Only a description runs on over lines of prose (`<example>`, `user: "…"`).
    if (current !== "description" || (value !== undefined && typeof value !== "string")) return undefined;
    data[current] = value === undefined ? line.trim() : `${value}\n${line}`;
    if (!repaired.includes(current)) repaired.push(current);
  }
  // Without a line of prose to account for, the YAML error stands (`description: [unclosed`).
  if (repaired.length === 0) return undefined;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string") data[key] = value.trimEnd();
    if (value === undefined) delete data[key];
  }
  return { data, repaired };
}

/** A text field's unquoted `{{…}}` value, quoted. */
function quoteTemplate(line: string): string {
  const match = /^([A-Za-z][\w-]*):[ \t]+(\{\{.*)$/.exec(line);
  const key = match?.[1];
  const value = match?.[2]?.trimEnd();
  if (key === undefined || value === undefined || !TEXT_FIELDS.has(key)) return line;
  return `${key}: '${value.replaceAll("'", "''")}'`;
}

/** The top-level field whose value holds line `index` (the nearest unindented `key:` at or above it). */
function fieldAt(lines: string[], index: number): string | undefined {
  for (let i = Math.min(index, lines.length - 1); i >= 0; i--) {
    const key = /^([A-Za-z][\w-]*)\s*:/.exec(lines[i] ?? "")?.[1];
    if (key !== undefined) return key;
  }
  return undefined;
}

type YamlRead = { ok: true; value: unknown } | { ok: false; message: string; line?: number; col?: number };

function readYaml(source: string): YamlRead {
  const doc = yaml().parseDocument(source, { prettyErrors: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const result: YamlRead = {
      ok: false,
      message: error.message.split("\n")[0]!.replace(/ at line \d+.*$/, ""),
    };
    const pos = error.linePos?.[0];
    if (pos) {
      result.line = pos.line;
      result.col = pos.col;
    }
    return result;
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (cause) {
    return { ok: false, message: cause instanceof Error ? cause.message : String(cause) };
  }
}

function mappingOrError(value: unknown, body: string, repaired: string[]): FrontmatterResult {
  if (value === null || value === undefined)
    return { ok: true, data: {}, body, hasFrontmatter: true, repaired };
  if (typeof value !== "object" || Array.isArray(value)) {
    const got = Array.isArray(value) ? "a list" : `a ${typeof value}`;
    return {
      ok: false,
      field: "frontmatter",
      message: `must be a mapping of \`key: value\` fields, got ${got}`,
    };
  }
  return { ok: true, data: value as Record<string, unknown>, body, hasFrontmatter: true, repaired };
}

function trimBody(text: string): string {
  return text.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
}
