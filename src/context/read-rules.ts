import { sep } from "node:path";
import { compileGlob } from "../fs/match-glob.js";
import { relativeInside } from "../fs/real-path.js";
import { parseFrontmatter } from "../skills/parse-frontmatter.js";
import { readInstructionFile } from "./read-instruction-file.js";
import { findRuleFiles } from "./rule-files.js";

/** The most globs one rule's `paths:` may list; the rest are left out with a note. */
const MAX_GLOBS = 20;
/** The most globs all the conditional rules of a session may hold together. */
export const MAX_PROJECT_GLOBS = 1_000;

/** A rule that applies only to files its `paths:` globs match: sent when such a file is read. */
export interface ConditionalRule {
  path: string;
  /** The body, frontmatter left out. */
  content: string;
  /** The globs as written. */
  globs: string[];
  /** Whether an absolute file path is one the rule is for (relative to the folder the rule's `.claude` is in). */
  matches(file: string): boolean;
}

export interface ReadRules {
  /** Rules without `paths:`: loaded at start, as the folder's CLAUDE.md is. */
  always: Array<{ path: string; content: string; notes: string[] }>;
  conditional: ConditionalRule[];
  /** The files and folders looked at, for change detection. */
  stamped: string[];
  notes: string[];
}

/**
 * The rules of one `rules` folder (Claude Code's `.claude/rules/*.md`, read recursively), each read as the
 * instruction files are (`readInstructionFile`: a regular file, inside `root` when given, at most `maxBytes`, cut
 * at `maxChars`), while `budget()` characters are left. A rule whose frontmatter has `paths:` (a list, or one
 * comma-separated string as Claude Code also reads it) is conditional: its globs are relative to `base`.
 */
export async function readRules(
  folder: string,
  options: {
    root: string | undefined;
    base: string;
    maxBytes: number;
    maxChars: number;
    budget: () => number;
    /** Globs the project's conditional rules may still hold, all folders together; lowered here. */
    globs: { left: number };
  },
): Promise<ReadRules> {
  const found = await findRuleFiles(folder, options.root);
  const result: ReadRules = {
    always: [],
    conditional: [],
    stamped: [folder, ...found.folders, ...found.files],
    notes: [...found.notes],
  };
  let spent = 0;
  for (const path of found.files) {
    if (options.budget() - spent <= 0) {
      result.notes.push(`${path} was not read: the instruction files already fill their budget.`);
      continue;
    }
    const read = await readInstructionFile(path, {
      roots: options.root === undefined ? undefined : [options.root],
      maxBytes: options.maxBytes,
    });
    if (read.kind === "missing") continue;
    if (read.kind === "refused") {
      result.notes.push(`${path} was not read: ${read.reason}`);
      continue;
    }
    const notes: string[] = [];
    const parsed = parseFrontmatter(read.content);
    let body = parsed.ok ? parsed.body : read.content;
    if (!parsed.ok) notes.push(`${path}: its frontmatter could not be read (${parsed.message}); read whole.`);
    if (body.length > options.maxChars) {
      body = body.slice(0, options.maxChars);
      notes.push(`${path} is longer than ${options.maxChars} characters; the rest was left out.`);
    }
    spent += body.length;
    const globs = parsed.ok ? globsOf(parsed.data.paths) : [];
    if (globs.length === 0) {
      result.always.push({ path, content: body, notes });
      continue;
    }
    const rule = conditionalRule(path, body, globs, options.base, options.globs);
    result.notes.push(...notes, ...rule.notes);
    if (rule.rule) result.conditional.push(rule.rule);
  }
  return result;
}

/** `paths:` as a list of strings or one comma-separated string (Claude Code reads both). */
function globsOf(value: unknown): string[] {
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [];
  return items
    .filter((item): item is string => typeof item === "string")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function conditionalRule(
  path: string,
  content: string,
  globs: string[],
  base: string,
  budget: { left: number },
): { rule?: ConditionalRule; notes: string[] } {
  const notes: string[] = [];
  const allowed = Math.min(MAX_GLOBS, Math.max(0, budget.left));
  if (globs.length > allowed) {
    notes.push(
      `${path} lists ${globs.length} paths; only the first ${allowed} are used (at most ${MAX_GLOBS} a rule, ${MAX_PROJECT_GLOBS} in all).`,
    );
  }
  budget.left -= Math.min(globs.length, allowed);
  const matchers = globs.slice(0, allowed).flatMap((glob) => {
    const matcher = compileGlob(glob);
    if (!matcher) notes.push(`${path}: the paths glob ${JSON.stringify(glob.slice(0, 80))} cannot be used.`);
    return matcher ? [matcher] : [];
  });
  if (matchers.length === 0) return { notes };
  const matches = (file: string) => {
    const inside = relativeInside(base, file);
    if (inside === undefined || inside === "") return false;
    const rel = sep === "/" ? inside : inside.split(sep).join("/");
    return matchers.some((match) => match(rel));
  };
  return { rule: { path, content, globs, matches }, notes };
}
