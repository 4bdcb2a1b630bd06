import { suggestBashRule } from "./describe-tool-call.js";
import type { BashAnalysis, BashCommand } from "./parse-bash-command.js";
import { parsePermissionRule } from "./permission-rule.js";

/**
 * Programs that only read or print, and run nothing on their behalf: in a compound line made only of these,
 * "always" may allow each by name (`Bash(echo:*)`, `Bash(sleep:*)`). Programs that can write a file named by
 * an option (`sort -o`, `uniq in out`, `tee`, `sed -i`) or run another command (`find -exec`, `xargs`, `rg --pre`)
 * are not here.
 */
const HARMLESS = new Set([
  ":",
  "[",
  "basename",
  "cat",
  "cd",
  "date",
  "df",
  "dirname",
  "du",
  "echo",
  "false",
  "file",
  "grep",
  "egrep",
  "fgrep",
  "head",
  "hostname",
  "id",
  "ls",
  "nl",
  "printf",
  "pwd",
  "readlink",
  "realpath",
  "rev",
  "seq",
  "sleep",
  "stat",
  "tac",
  "tail",
  "test",
  "tr",
  "true",
  "uname",
  "wc",
  "which",
  "whoami",
]);

/**
 * Programs whose arguments are code or name what to run: a prefix rule for them (`Bash(python:*)`,
 * `Bash(sudo:*)`) would allow anything, so "always" allows only the exact line.
 */
const RUNS_ITS_ARGUMENTS = new Set([
  ".",
  "awk",
  "bash",
  "builtin",
  "command",
  "doas",
  "env",
  "eval",
  "exec",
  "find",
  "gawk",
  "node",
  "parallel",
  "perl",
  "php",
  "python",
  "python3",
  "ruby",
  "sed",
  "sh",
  "source",
  "ssh",
  "su",
  "sudo",
  "watch",
  "xargs",
  "zsh",
]);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/**
 * The narrowest rules that "always" can save for a Bash line, given which of its commands rules allow already:
 * - one simple command: its prefix rule (`Bash(rm:*)`, `Bash(git push:*)`; through a wrapper that changes
 *   nothing but how it runs, the inner command's: `timeout 30 npm test` → `Bash(npm test:*)`), unless it runs
 *   other commands or code (`sudo`, `sh -c`, `python`, `find -exec`) or starts with an assignment
 *   (`FOO=1 npm test`): then the exact line;
 * - a list or pipeline (`npm test && git push`, `cd src && ls`, `ls | wc -l`): the prefix rule of each command
 *   not yet allowed, as each would get alone; if one of them would get the exact line, the exact line;
 * - a block (a loop, a conditional, a subshell, `$(…)`): a rule per command when every command not yet allowed
 *   is harmless (`for …; do echo …; sleep 1; done` → `Bash(echo:*)`, `Bash(sleep:*)`), else the exact line —
 *   never a rule for the keyword (`Bash(for:*)`), nor a broad rule for a command the user saw only in a loop.
 * Empty when the parse cannot account for the line, or when the exact line cannot be written as a rule (it holds
 * `*`, which a rule reads as a wildcard, or a comment): then only "yes, once" is offered.
 */
export function suggestBashRules(
  line: string,
  bash: BashAnalysis,
  allowed: (command: BashCommand) => boolean,
): string[] {
  if (bash.unaccounted.length > 0) return [];
  const needed = bash.commands.filter((command) => !allowed(command));
  if (needed.length === 0) return [];
  if (bash.shape !== "block") {
    const rules: string[] = [];
    for (const command of needed) {
      const words = ruleWords(command);
      const rule = words ? suggestBashRule(words) : undefined;
      if (!rule) return exactLineRule(line);
      rules.push(rule);
    }
    return [...new Set(rules)];
  }
  const harmless = needed.every(
    (command) =>
      command.inner.length === 0 &&
      !ASSIGNMENT.test(command.words[0] ?? "") &&
      HARMLESS.has(command.words[0] ?? ""),
  );
  if (harmless) return [...new Set(needed.map((command) => `Bash(${command.words[0]}:*)`))];
  return exactLineRule(line);
}

/** The words a prefix rule may be made from, or undefined when only the exact line is narrow enough. */
function ruleWords(command: BashCommand): string[] | undefined {
  let words = command.words;
  if (command.inner.length > 0) {
    // Only wrappers that change nothing but how it runs: the rule is for what runs inside.
    if (command.through.length !== command.inner.length) return undefined;
    words = command.through.at(-1) ?? words;
  }
  const first = words[0];
  if (first === undefined || ASSIGNMENT.test(first) || first.includes("/")) return undefined;
  if (RUNS_ITS_ARGUMENTS.has(first)) return undefined;
  return words;
}

/** `Bash(<line>)`, when the rule reads back as exactly that line. */
function exactLineRule(line: string): string[] {
  const text = line.trim();
  if (text === "" || text.includes("*")) return [];
  const rule = `Bash(${text})`;
  try {
    const parsed = parsePermissionRule(rule, { source: "suggestion", root: "/", home: "/" }, "a suggestion");
    return parsed.line === text ? [rule] : [];
  } catch {
    return [];
  }
}
