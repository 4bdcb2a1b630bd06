import { parseBashCommand } from "../permissions/parse-bash-command.js";

/** Programs that only read, whatever their arguments (bar the few named in `WRITING_ARGS`). */
const READ_ONLY_PROGRAMS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "find",
  "file",
  "stat",
  "pwd",
  "echo",
  "printf",
  "tree",
  "du",
  "which",
  "sort",
  "uniq",
  "cut",
  "tr",
  "diff",
  "cmp",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "date",
  "nl",
  "true",
  "false",
  "test",
  "[",
]);

/** git subcommands that change nothing in the repository or the work tree. */
const READ_ONLY_GIT = new Set([
  "log",
  "show",
  "diff",
  "status",
  "grep",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "shortlog",
  "describe",
  "cat-file",
  "merge-base",
]);

/** Arguments that make an otherwise reading program write, delete or run something. */
const WRITING_ARGS: Record<string, RegExp> = {
  find: /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/,
  sort: /^(-o|--output|--compress-program)/,
  tree: /^-o$/,
  rg: /^--pre/,
  git: /^(--output|-O|--open-files-in-pager|--ext-diff|--textconv)/,
  date: /^(-s|--set)/,
};

/**
 * Whether a shell command line only reads: every simple command in it (pipes, `&&`, subshells included) is a
 * reading program (`ls`, `cat`, `grep`, `find` without `-delete` / `-exec`, `git log` / `diff` / `status`, …),
 * nothing is redirected into a file (`2>/dev/null` is fine), and the whole line could be analysed. This is the
 * Explore agent's Bash rule: what it allows changes nothing, so plan mode's promise holds.
 */
export function isReadOnlyCommand(line: string): boolean {
  // The same bash parse as the permission rules: redirections to files (`2>&1` and `/dev/null` are not) are
  // writes, and a line with anything the parse cannot account for is not known to only read.
  const analysis = parseBashCommand(line);
  if (analysis.unaccounted.length > 0 || analysis.commands.length === 0 || analysis.writes.length > 0) {
    return false;
  }
  return analysis.commands.every((command) => readsOnly(command.words));
}

function readsOnly(words: string[]): boolean {
  let i = 0;
  // `FOO=1 cmd` sets a variable for cmd only; the command itself is what counts.
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  const program = words[i];
  if (program === undefined) return false;
  const args = words.slice(i + 1);
  const writes = WRITING_ARGS[program];
  if (writes && args.some((arg) => writes.test(arg))) return false;
  if (program === "git") {
    const sub = args.find((arg) => !arg.startsWith("-"));
    return (
      sub !== undefined &&
      READ_ONLY_GIT.has(sub) &&
      !args.some((a) => a === "-c" || a.startsWith("--exec-path"))
    );
  }
  return READ_ONLY_PROGRAMS.has(program);
}
