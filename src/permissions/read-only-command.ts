import { type BashAnalysis, FIND_ACTS, parseBashCommand } from "./parse-bash-command.js";

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

/** git subcommands that only list when given nothing but these options. */
const LISTING_GIT: Record<string, RegExp> = {
  branch: /^(-a|-r|-v|-vv|-av|-l|--list|--all|--remotes|--verbose|--show-current|--no-color)$/,
  remote: /^(-v|--verbose)$/,
};

/** Arguments that make an otherwise reading program write, delete or run something. */
const WRITING_ARGS: Record<string, RegExp> = {
  find: FIND_ACTS,
  sort: /^(-o|--output|--compress-program)/,
  tree: /^-o$/,
  rg: /^--pre/,
  git: /^(--output|-O|--open-files-in-pager|--ext-diff|--textconv)/,
  date: /^(-s|--set)/,
  file: /^(-C|--compile)$/,
};

/**
 * Variables a read-only command may be given (`LC_ALL=C sort`): they change how it prints, not what it runs.
 * Any other (`GIT_CONFIG_*`, `LD_PRELOAD`, `PAGER`…) may make it run something else.
 */
const HARMLESS_VARIABLE = /^(LC_[A-Z]+|LANG|LANGUAGE|TZ|NO_COLOR|COLUMNS|TERM)=/;

/** Programs whose arguments name no file they read (text, names or dates). */
const NO_FILE_ARGS = new Set([
  "echo",
  "printf",
  "true",
  "false",
  "date",
  "basename",
  "dirname",
  "which",
  "test",
  "[",
]);
/** Options whose value is a pattern, not a file: the word after them is not checked as a path. */
const PATTERN_OPTIONS: Record<string, RegExp> = {
  grep: /^(-e|--regexp)$/,
  egrep: /^(-e|--regexp)$/,
  fgrep: /^(-e|--regexp)$/,
  rg: /^(-e|--regexp|-g|--glob|--iglob)$/,
  find: /^-(name|iname|path|ipath|wholename|iwholename|regex|iregex|lname|ilname)$/,
};
/**
 * Options that make a search follow symbolic links (`grep -R`, `rg -L`, `find -L`): a link inside the workspace
 * would take it outside, where the paths it names do not say.
 */
const FOLLOWS_LINKS: Record<string, RegExp> = {
  grep: /^(-[a-zA-Z]*R[a-zA-Z]*|--dereference-recursive)$/,
  egrep: /^(-[a-zA-Z]*R[a-zA-Z]*|--dereference-recursive)$/,
  fgrep: /^(-[a-zA-Z]*R[a-zA-Z]*|--dereference-recursive)$/,
  rg: /^(-[a-zA-Z]*L[a-zA-Z]*|--follow)$/,
  find: /^(-L|-H|-follow)$/,
  tree: /^-[a-zA-Z]*l[a-zA-Z]*$/,
  du: /^(-[a-zA-Z]*L[a-zA-Z]*|--dereference)$/,
};

/** Programs that read a whole folder below where they start: without a path, the working folder. */
const SEARCHES = /^(grep|egrep|fgrep|rg|find|tree|du|git)$/;

/** What a read-only command line may read, for a check of where it reads. */
export interface ReadOnlyReads {
  /** Every word that may name a file or folder it reads, as written (`~/x` unexpanded; a glob as written). */
  paths: string[];
  /** A program that searches a folder was given none: it searches the working folder. */
  searchesWorkingFolder: boolean;
  /** It runs git (whose repository configuration can name programs to run). */
  runsGit: boolean;
}

/**
 * Whether a shell command line only reads: every simple command in it (pipes, `&&`, subshells included) is a
 * reading program (`ls`, `cat`, `grep`, `find` without `-delete` / `-exec`, `git log` / `diff` / `status`, …),
 * nothing is redirected into a file (`2>/dev/null` is fine), and the whole line could be analysed. This is the
 * Explore agent's Bash rule: what it allows changes nothing, so plan mode's promise holds.
 */
export function isReadOnlyCommand(line: string): boolean {
  return readOnlyAnalysis(parseBashCommand(line));
}

/**
 * Whether a parsed line only reads (see `isReadOnlyCommand`). The same bash parse as the permission rules:
 * redirections to files (`2>&1` and `/dev/null` are not) are writes, and a line with anything the parse cannot
 * account for is not known to only read.
 */
export function readOnlyAnalysis(analysis: BashAnalysis): boolean {
  if (analysis.unaccounted.length > 0 || analysis.commands.length === 0 || analysis.writes.length > 0) {
    return false;
  }
  return analysis.commands.every((command) => readsOnly(command.words));
}

/**
 * For a line that only reads (`readOnlyAnalysis`): the words that may name what it reads, or undefined when
 * one cannot be known before the line runs (`$VAR`, `$(…)`, a brace expansion, `~user`, a value glued to a
 * short option: `-f/etc/x`). Options are left out, but the value of `--opt=value` is kept; input redirections
 * are in `analysis.reads`.
 */
export function readOnlyReads(analysis: BashAnalysis): ReadOnlyReads | undefined {
  const reads: ReadOnlyReads = { paths: [], searchesWorkingFolder: false, runsGit: false };
  for (const { words, unresolved } of analysis.commands) {
    const [program, ...args] = programAndArgs(words);
    if (program === undefined) return undefined;
    if (program === "git") reads.runsGit = true;
    // `cd DIR`: its folder is in `analysis.cds`, where the caller checks it and reads what follows from it.
    if (NO_FILE_ARGS.has(program) || program === "cd") continue;
    const follows = FOLLOWS_LINKS[program];
    if (follows && args.some((arg) => follows.test(arg))) return undefined;
    const patternOption = PATTERN_OPTIONS[program];
    const explicitPattern =
      /grep$|^rg$/.test(program) && args.some((a) => /^(-e|--regexp|-f|--file)/.test(a));
    let patternSkipped = !/grep$|^rg$/.test(program) || explicitPattern;
    let positional = 0;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      // The pattern of grep as written (a dollar sign in single quotes): a character, not an expansion.
      const literalPattern = !patternSkipped && unresolved.length === 0 && !arg.startsWith("-");
      if (/[$`]/.test(arg) && !literalPattern) return undefined;
      if (arg === "-" || arg === "--") continue;
      if (arg.startsWith("-")) {
        if (patternOption?.test(arg)) i++;
        const eq = arg.indexOf("=");
        if (eq !== -1) {
          if (eq + 1 < arg.length && !patternOption?.test(arg.slice(0, eq)))
            reads.paths.push(arg.slice(eq + 1));
        } else if (/[/~]/.test(arg)) return undefined;
        continue;
      }
      if (!patternSkipped) {
        patternSkipped = true; // grep PATTERN [FILE…]: the first word is the pattern
        continue;
      }
      if (program === "git" && positional++ === 0) continue; // the subcommand
      reads.paths.push(arg);
    }
    const hasPath = args.some((a) => !a.startsWith("-"));
    if (SEARCHES.test(program) && (!hasPath || program === "git")) reads.searchesWorkingFolder = true;
  }
  for (const path of reads.paths) {
    if (/\{[^}]*(,|\.\.)[^}]*\}/.test(path) || /^~[^/]/.test(path)) return undefined;
    // A glob whose part starts with a dot or a bracket may match `..` (bash before 5.2): it could lead out.
    if (path.split("/").some((part) => /[*?[]/.test(part) && /^[.[]/.test(part))) return undefined;
  }
  return reads;
}

/**
 * Whether no argument of this command, whatever it expands to, can make it write a file (`cat $f`, `echo $x`):
 * a reading program none of whose options writes.
 */
export function writesThroughNoArgument(words: string[]): boolean {
  const [program] = programAndArgs(words);
  return program !== undefined && READ_ONLY_PROGRAMS.has(program) && WRITING_ARGS[program] === undefined;
}

/** The program and its arguments, after the `NAME=value` assignments that only change how it prints. */
function programAndArgs(words: string[]): string[] {
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(words[i]!)) {
    if (!HARMLESS_VARIABLE.test(words[i]!)) return [];
    i++;
  }
  return words.slice(i);
}

function readsOnly(words: string[]): boolean {
  const [program, ...args] = programAndArgs(words);
  if (program === undefined) return false;
  // A literal `cd` (one known only when the line runs is unaccounted for): it changes where the rest reads.
  if (program === "cd") return true;
  const writes = WRITING_ARGS[program];
  if (writes && args.some((arg) => writes.test(arg))) return false;
  if (program === "git") {
    const sub = args.find((arg) => !arg.startsWith("-"));
    if (sub === undefined) return false;
    if (args.some((a) => a === "-c" || a.startsWith("--exec-path") || a.startsWith("--config-env")))
      return false;
    // `git branch -a`, `git remote -v`: listings; a name after them would create, rename or contact one.
    const listing = LISTING_GIT[sub];
    if (listing) return args.slice(args.indexOf(sub) + 1).every((arg) => listing.test(arg));
    return READ_ONLY_GIT.has(sub);
  }
  return READ_ONLY_PROGRAMS.has(program);
}
