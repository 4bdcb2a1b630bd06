import { parse } from "shell-quote";
import type { Command, Skill } from "./skill.js";

const PLACEHOLDER =
  /\$\{((?:MITSU|CLAUDE)_SKILL_DIR)\}|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$([0-9])(?![0-9])|\$([A-Za-z_]\w*)/g;

/** `/name rest`: a name is letters, digits, `-`, `_`, `.` and `:` (namespaces), then whitespace or the end. */
const SLASH = /^\/([A-Za-z0-9][\w.:-]*)(?:\s+([\s\S]*))?$/;

/**
 * Recognises a slash invocation typed by the user. `args` is the rest of the input, trimmed (newlines kept).
 * Returns undefined for anything else, including paths such as `/usr/bin/env` and a lone `/`.
 */
export function parseSlash(input: string): { name: string; args: string } | undefined {
  const match = SLASH.exec(input.trim());
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}

/**
 * What `/name` runs: a skill or command of that name, unless it is a skill marked `user-invocable: false`.
 * A leading `/` on the name is ignored.
 */
export function findSlashTarget(
  name: string,
  catalog: { skills: readonly Skill[]; commands: readonly Command[] },
): Skill | Command | undefined {
  const bare = name.replace(/^\//, "");
  const skill = catalog.skills.find((s) => s.name === bare && s.userInvocable);
  return skill ?? catalog.commands.find((c) => c.name === bare);
}

/**
 * Splits an argument string shell-style: quotes group words, `\` escapes. `$VAR` stays literal, operators and
 * globs stay as typed, and `#123` is a word, not a comment. With unbalanced quotes (`don't`) the string is split
 * on whitespace instead, since a user's apostrophe is not a shell quote.
 */
export function splitArguments(args: string): string[] {
  if (args.trim() === "") return [];
  if (!quotesBalanced(args)) return args.trim().split(/\s+/);
  const words: string[] = [];
  for (const entry of parse(args, (key) => `$${key}`)) {
    if (typeof entry === "string") words.push(entry);
    else if ("comment" in entry) words.push(...`#${entry.comment}`.split(/\s+/).filter(Boolean));
    else if (entry.op === "glob") words.push(entry.pattern);
    else words.push(entry.op);
  }
  return words;
}

/**
 * The text an invocation sends to the model as the user message (no model call is needed to produce it).
 *
 * Placeholders in the body, as Claude Code expands them today (its skills documentation, 2.1.x; commands are
 * skills there): `$ARGUMENTS` is the whole argument string as typed; `$ARGUMENTS[N]` and its shorthand `$N` are
 * the positional arguments counted from zero (`$0` is the first, `$1` the second — not the first, as Claude Code's
 * older command docs had it); a name listed in the `arguments` frontmatter (`arguments: [issue, branch]`) is
 * `$issue`, `$branch`, in order; quotes group words (see `splitArguments`); a missing one is empty.
 * `${MITSU_SKILL_DIR}` (or Claude Code's `${CLAUDE_SKILL_DIR}`) is the skill's folder. A body with no argument
 * placeholder gets `ARGUMENTS: <args>` appended when arguments were given, so they are never lost.
 * `$N` is one digit: `$10` and `$100` stay as written (a price in the text is not an argument).
 * A skill's text starts with its folder's path and the list of its other files, so the model can Read its
 * `scripts/` and `references/` when the instructions call for them.
 */
export function expandInvocation(target: Skill | Command, args: string): string {
  const trimmed = args.trim();
  const skillDir = target.kind === "skill" ? target.dir : undefined;
  const names = target.argumentNames ?? [];
  const named = names.length > 0 && names.some((n) => new RegExp(`\\$${n}(?!\\w)`).test(target.body));
  const usesArguments = named || /\$ARGUMENTS\b|\$[0-9](?![0-9])/.test(target.body);
  const words = usesArguments ? splitArguments(trimmed) : [];
  // One pass, so that a `$1` inside the arguments themselves is never expanded again.
  let body = target.body.replace(
    PLACEHOLDER,
    (
      match,
      dirName: string | undefined,
      index: string | undefined,
      digit: string | undefined,
      name: string | undefined,
    ) => {
      if (dirName !== undefined) return skillDir ?? match;
      if (index !== undefined) return words[Number(index)] ?? "";
      if (digit !== undefined) return words[Number(digit)] ?? "";
      if (name !== undefined) {
        if (name === "ARGUMENTS") return trimmed;
        const at = names.indexOf(name);
        return at < 0 ? match : (words[at] ?? "");
      }
      return trimmed;
    },
  );
  if (!usesArguments && trimmed !== "") body = `${body}\n\nARGUMENTS: ${trimmed}`;
  if (target.kind === "command") return body;
  return `${skillHeader(target)}\n\n${body}`;
}

/** "Base directory for this skill" and the folder's other files, by relative path (not their content). */
export function skillHeader(skill: Skill): string {
  const lines = [`Base directory for this skill: ${skill.dir}`];
  if (skill.files.length > 0) {
    lines.push("Files in this folder (read one only when the instructions need it):");
    for (const file of skill.files) lines.push(`- ${file}`);
  }
  return lines.join("\n");
}

function quotesBalanced(text: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\\" && quote !== "'") i++;
    else if (quote === undefined && (char === "'" || char === '"')) quote = char;
    else if (char === quote) quote = undefined;
  }
  return quote === undefined;
}
