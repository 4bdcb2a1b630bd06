import { type ShNode, type ShParser, shParser } from "./sh-parser.js";
import { readWord, type ShellWord } from "./shell-word.js";
import { commandName, readsScriptFromStdin, unwrapCommand } from "./unwrap-command.js";
import { wordAlternatives } from "./word-alternatives.js";

/** One simple command that a Bash line runs. */
export interface BashCommand {
  /** Its words as bash will run them: leading `NAME=value` assignments, then the command and its arguments. */
  words: string[];
  /**
   * Commands it runs on its behalf, as far as the words show: `env rm x` runs `rm x`, `sh -c 'rm x'` and
   * `find -exec rm` too, `/bin/rm` is `rm`. Deny and ask rules are matched against these as well.
   */
  inner: string[][];
  /** Of `inner`, those reached only through wrappers that change nothing but how it runs (`timeout 30 npm test`). */
  through: string[][];
  /**
   * Its arguments (and those of scripts it runs) whose value is known only when the line runs, as written:
   * `$d/hooks`, `$(printf …)`, `~user/x`, a glob after a dot (`.gi?`). Any could name a protected file.
   */
  unresolved: string[];
  /** Its other arguments as bash will see them, each brace alternative apart (`~/` left as written). */
  paths: string[];
}

/** What a Bash command line would do, as far as a bash parser can tell before it runs. */
export interface BashAnalysis {
  /** Every simple command, wherever it sits: lists, pipelines, subshells, substitutions, function and loop bodies. */
  commands: BashCommand[];
  /** Files that output redirections write (`> out.txt`, `&>> log`), as written; `/dev/null` and the like left out. */
  writes: string[];
  /** Files that input redirections read (`< in.txt`, `<> f`), as written. */
  reads: string[];
  /**
   * What the analysis cannot account for (a command name known only at run time, `eval`, a sourced file,
   * arithmetic on variables, a syntax error…). When not empty, no allow rule may allow the line.
   */
  unaccounted: string[];
  /**
   * The folders literal `cd` and `pushd` commands change to, in order, as written (`~` for a bare `cd`): a
   * relative path after one may lie below any of them. A `cd` to a folder known only at run time is unaccounted.
   */
  cds: string[];
  /**
   * How the commands are put together: `simple` (one command), `list` (commands joined by `;`, `&&`, `||`, `|`
   * or new lines), `block` (any loop, conditional, subshell, group, function, command or process substitution).
   * "Always" saves the exact line for a block unless every command in it is harmless (see `suggestBashRules`).
   */
  shape: "simple" | "list" | "block";
}

const KNOWN_NODES = new Set([
  "File",
  "Stmt",
  "Word",
  "Lit",
  "SglQuoted",
  "DblQuoted",
  "CmdSubst",
  "ProcSubst",
  "ParamExp",
  "Assign",
  "ArrayExpr",
  "ArrayElem",
  "Redirect",
  "BinaryCmd",
  "Block",
  "Subshell",
  "IfClause",
  "WhileClause",
  "ForClause",
  "WordIter",
  "CaseClause",
  "CaseItem",
  "FuncDecl",
  "TimeClause",
  "CoprocClause",
  "TestClause",
  "BinaryTest",
  "UnaryTest",
  "ParenTest",
  "ExtGlob",
  "BraceExp",
  "Slice",
  "Replace",
  "Expansion",
  "Comment",
  "CallExpr",
  "DeclClause",
]);
/** Shell structure around commands: a line with any of these is a `block`. */
const BLOCK_NODES = new Set([
  "Block",
  "Subshell",
  "IfClause",
  "WhileClause",
  "ForClause",
  "CaseClause",
  "FuncDecl",
  "CoprocClause",
  "CmdSubst",
  "ProcSubst",
]);
const ARITHMETIC_NODES = new Set(["ArithmExp", "ArithmCmd", "CStyleLoop", "LetClause"]);
const ARITHMETIC_PARTS = new Set(["BinaryArithm", "UnaryArithm", "ParenArithm"]);

/**
 * Variables that change what later commands run or how the shell reads them: an assignment to one makes
 * the line unaccountable (`PATH=/tmp/evil; git status` runs /tmp/evil/git).
 */
const SPECIAL_VARIABLE =
  /^(PATH|IFS|ENV|BASH_ENV|BASHOPTS|SHELLOPTS|CDPATH|GLOBIGNORE|PROMPT_COMMAND|PS4|HOME|FUNCNEST|LD_\w+|DYLD_\w+|BASH_\w+)$/;
/** Builtins that take variable names, in which an array subscript is evaluated as arithmetic (and so as code). */
const NAME_BUILTINS = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "read",
  "printf",
  "unset",
  "mapfile",
  "readarray",
  "test",
  "[",
  "let",
]);
/** Redirection targets that are not files a rule could be about. */
const NOT_FILES = /^\/dev\/(null|stdout|stderr|stdin|tty|fd\/\d+)$/;
const OUTPUT_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const MAX_DEPTH = 6;
/** What `unresolved` says of the words xargs reads from its input and adds to its command. */
export const XARGS_INPUT = "the words xargs reads";
/** find's actions on the files it finds (also what makes find write in read-only-command.ts's WRITING_ARGS). */
export const FIND_ACTS = /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/;
/** A word whose only expansion is a leading `~` (`~`, `~/x`): a literal path below the home folder. */
const TILDE_ONLY = /^~(\/[^*?[{]*)?$/;
/** More `cd`s than this in one line are not followed (the folders a write may land in grow as 2^n). */
const MAX_CDS = 4;

/**
 * Parses a Bash command line with mvdan/sh's bash grammar and lists what it runs and writes. Heredoc
 * bodies are data (only their expansions run); comments are nothing. Whatever the walk does not fully
 * understand lands in `unaccounted`, so that an allow rule never allows what nobody checked; deny rules
 * still see every command the parse could find.
 */
export function parseBashCommand(line: string): BashAnalysis {
  return analyse(line, 0);
}

function analyse(line: string, depth: number): BashAnalysis {
  const result: BashAnalysis = {
    commands: [],
    writes: [],
    reads: [],
    unaccounted: [],
    cds: [],
    shape: "simple",
  };
  if (depth > MAX_DEPTH) {
    result.unaccounted.push("scripts nested too deeply");
    return result;
  }
  const parser = shParser();
  let file: ShNode;
  let source: Buffer = Buffer.from(line, "utf8");
  try {
    file = parser.parse(line);
    // mvdan/sh joins a line whose comment ends in a backslash with the next one; bash does not (a comment
    // ends at the newline, whatever comes before it). Blank such backslashes and parse again.
    for (let patched = commentContinuations(file, parser, source); patched; ) {
      file = parser.parse(patched.toString("utf8"));
      source = patched;
      patched = commentContinuations(file, parser, source);
    }
  } catch (error) {
    const message =
      typeof (error as ShNode)?.Error === "function" ? (error as ShNode).Error() : String(error);
    result.unaccounted.push(`a syntax error (${message})`);
    result.commands.push(roughCommands(line));
    return result;
  }
  const text = (node: ShNode) => source.subarray(parser.start(node), parser.end(node)).toString("utf8");
  const unaccounted = (why: string) => {
    if (!result.unaccounted.includes(why)) result.unaccounted.push(why);
  };
  let statements = 0;
  parser.walk(file, (node) => {
    const type = parser.kind(node);
    if (BLOCK_NODES.has(type)) result.shape = "block";
    else if ((type === "BinaryCmd" || (type === "Stmt" && ++statements > 1)) && result.shape === "simple")
      result.shape = "list";
    if (ARITHMETIC_NODES.has(type)) {
      // `$(( x ))` evaluates the value of x as an expression, whose array subscripts can run commands.
      if (/[A-Za-z_$`]/.test(text(node).replace(/^(\$\(\(|\(\(|let\b|for\b)/, ""))) {
        unaccounted("arithmetic on variables");
      }
      return true;
    }
    if (ARITHMETIC_PARTS.has(type)) return true;
    if (type === "Comment") return true;
    if (!KNOWN_NODES.has(type)) {
      unaccounted(`shell syntax the check does not know (${type})`);
      return true;
    }
    if (type === "Stmt") redirections(node, parser, source, result, unaccounted);
    else if (type === "CallExpr") callExpr(node, parser, source, result, unaccounted, depth);
    else if (type === "DeclClause") declClause(node, parser, source, result, unaccounted);
    else if (type === "BinaryTest" && parser.operators.arithmeticTests.has(node.Op)) {
      for (const side of [node.X, node.Y]) {
        if (parser.kind(side) !== "Word" || !/^-?\d+$/.test(readWord(side, parser, source).value)) {
          unaccounted("arithmetic on variables");
        }
      }
    }
    return true;
  });
  return result;
}

type Unaccounted = (why: string) => void;

/** The source with the backslash of each comment's `\⏎` turned into a space, or undefined when there is none. */
function commentContinuations(file: ShNode, parser: ShParser, source: Buffer): Buffer | undefined {
  let patched: Buffer | undefined;
  parser.walk(file, (node) => {
    if (parser.kind(node) !== "Comment") return true;
    const body = Buffer.from(node.Text as string, "latin1");
    const start = parser.start(node) + 1;
    for (let i = body.indexOf("\\\n"); i !== -1; i = body.indexOf("\\\n", i + 1)) {
      if (source[start + i] !== 0x5c) continue;
      patched ??= Buffer.from(source);
      patched[start + i] = 0x20;
    }
    return true;
  });
  return patched;
}

function redirections(
  stmt: ShNode,
  parser: ShParser,
  source: Buffer,
  result: BashAnalysis,
  unaccounted: Unaccounted,
): void {
  for (const redirect of parser.list(stmt.Redirs)) {
    const op = parser.operators.redirect.get(redirect.Op);
    if (op === undefined) {
      unaccounted("a redirection the check does not know");
      continue;
    }
    if (op === "<" || op === "<>") {
      const input = readWord(redirect.Word, parser, source);
      // `cat < $f`: which file is read is known only when the line runs (Read rules, the workspace's bounds).
      const tildeOnly = TILDE_ONLY.test(input.value); // `< ~/x`: the home folder, as a Read of it
      if (input.dynamic || (input.pattern && !tildeOnly)) {
        unaccounted(`a redirection from a file name known only when the line runs (${input.value})`);
      } else if (!result.reads.includes(input.value)) result.reads.push(input.value);
    }
    if (!OUTPUT_REDIRECTS.has(op) && op !== ">&" && op !== "<&") continue;
    const target = readWord(redirect.Word, parser, source);
    // `2>&1`, `>&-`: a file descriptor, not a file.
    if ((op === ">&" || op === "<&") && /^(\d+-?|-)$/.test(target.value) && !target.dynamic) continue;
    if (op === "<&") {
      unaccounted("a redirection the check does not know");
      continue;
    }
    if (target.dynamic || target.pattern) {
      unaccounted(`a redirection to a file name known only when the line runs (${target.value})`);
      continue;
    }
    if (!NOT_FILES.test(target.value) && !result.writes.includes(target.value))
      result.writes.push(target.value);
  }
}

function assignText(assign: ShNode, parser: ShParser, source: Buffer): string {
  const name = parser.isNil(assign.Name) ? undefined : parser.text(assign.Name.Value);
  let value = "";
  if (!parser.isNil(assign.Value)) value = readWord(assign.Value, parser, source).value;
  else if (!parser.isNil(assign.Array)) {
    value = source.subarray(parser.start(assign.Array), parser.end(assign.Array)).toString("utf8");
  }
  if (name === undefined) return value;
  if (assign.Naked) return name;
  return `${name}${assign.Append ? "+=" : "="}${value}`;
}

/** An assignment that stays in the shell (not a prefix of one command) to a variable that steers later ones. */
function checkAssignName(assign: ShNode, parser: ShParser, unaccounted: Unaccounted): void {
  const name = parser.isNil(assign.Name) ? undefined : parser.text(assign.Name.Value);
  if (name !== undefined && SPECIAL_VARIABLE.test(name)) {
    unaccounted(`an assignment to ${name}, which changes what later commands do`);
  }
}

function callExpr(
  call: ShNode,
  parser: ShParser,
  source: Buffer,
  result: BashAnalysis,
  unaccounted: Unaccounted,
  depth: number,
): void {
  const assigns = parser.list(call.Assigns);
  const args = parser.list(call.Args).map((word) => readWord(word, parser, source));
  if (args.length === 0) for (const assign of assigns) checkAssignName(assign, parser, unaccounted);
  if (args.length === 0) return;
  const assignWords = assigns.map((assign) => assignText(assign, parser, source));
  const argWords = args.map((word) => word.value);
  const head = args[0]!;
  if (head.dynamic || head.pattern)
    unaccounted(`a command name known only when the line runs (${head.value})`);
  const name = commandName(head.value);
  if (name === "eval") unaccounted("eval");
  if (name === "source" || name === ".") unaccounted("a sourced file");
  if (name === "shopt") unaccounted("shopt, which changes how words expand");
  if (readsScriptFromStdin(argWords)) unaccounted("a script a shell reads from its standard input");
  if (name === "printf" || name === "read" || name === "mapfile" || name === "readarray") {
    // `printf -v PATH …`, `read PATH`: an assignment by another name.
    const special = argWords.slice(1).find((word) => SPECIAL_VARIABLE.test(word));
    if (special !== undefined)
      unaccounted(`an assignment to ${special}, which changes what later commands do`);
  }
  if (name === "cd" || name === "pushd") changeFolder(args.slice(1), result, unaccounted);
  if (NAME_BUILTINS.has(name) && argWords.some((word) => word.includes("[") && /\$|`/.test(word))) {
    unaccounted("an array subscript, which bash evaluates as code");
  }
  const command = withInner([...assignWords, ...argWords], argWords, depth, result);
  // Words that come from elsewhere when the line runs: what xargs reads, the files find hands to -exec or deletes
  // (a search from `.` walks into .git).
  if (name === "xargs") command.unresolved.push(XARGS_INPUT);
  if (name === "find" && argWords.some((word) => FIND_ACTS.test(word)))
    command.unresolved.push("the files find acts on");
  for (const arg of args.slice(1)) {
    const alternatives = arg.dynamic ? undefined : wordAlternatives(arg);
    if (alternatives === undefined) command.unresolved.push(arg.value);
    else command.paths.push(...alternatives);
  }
  result.commands.push(command);
}

/** `cd DIR`, `pushd DIR`: a literal folder is noted; one known only when the line runs is unaccounted. */
function changeFolder(args: ShellWord[], result: BashAnalysis, unaccounted: Unaccounted): void {
  const target = args.find((arg) => arg.dynamic || !arg.value.startsWith("-") || arg.value === "-");
  if (target === undefined) {
    result.cds.push("~");
    return;
  }
  const literal =
    !target.dynamic && target.value !== "-" && (!target.pattern || TILDE_ONLY.test(target.value));
  if (!literal || result.cds.length >= MAX_CDS) {
    unaccounted(`a cd to a folder known only when the line runs (${target.value})`);
    return;
  }
  result.cds.push(target.value);
}

function declClause(
  decl: ShNode,
  parser: ShParser,
  source: Buffer,
  result: BashAnalysis,
  unaccounted: Unaccounted,
): void {
  const variant = parser.isNil(decl.Variant) ? "declare" : parser.text(decl.Variant.Value);
  const words = [variant];
  for (const assign of parser.list(decl.Args)) {
    checkAssignName(assign, parser, unaccounted);
    words.push(assignText(assign, parser, source));
  }
  if (words.some((word) => word.includes("[") && /\$|`/.test(word))) {
    unaccounted("an array subscript, which bash evaluates as code");
  }
  result.commands.push({ words, inner: [], through: [], unresolved: [], paths: [] });
}

/** The command with what it runs on its behalf (wrappers, `sh -c`, `eval`, `find -exec`, a path's base name). */
function withInner(words: string[], run: string[], depth: number, result: BashAnalysis): BashCommand {
  const command: BashCommand = { words, inner: [], through: [], unresolved: [], paths: [] };
  const queue: Array<{ words: string[]; transparent: boolean }> = [{ words: run, transparent: true }];
  for (let step = 0; step < queue.length && step < 32; step++) {
    const current = queue[step]!;
    const head = current.words[0] ?? "";
    if (head.includes("/")) command.inner.push([commandName(head), ...current.words.slice(1)]);
    for (const inner of unwrapCommand(current.words)) {
      if (inner.kind === "script") {
        const nested = analyse(inner.script, depth + 1);
        for (const found of nested.commands) {
          command.inner.push(found.words, ...found.inner);
          command.unresolved.push(...found.unresolved);
          command.paths.push(...found.paths);
        }
        // What the script writes, reads and changes to is the line's too.
        for (const key of ["writes", "reads", "unaccounted", "cds"] as const) {
          for (const item of nested[key]) if (!result[key].includes(item)) result[key].push(item);
        }
        continue;
      }
      command.inner.push(inner.words);
      const transparent = current.transparent && inner.transparent;
      if (transparent) command.through.push(inner.words);
      queue.push({ words: withoutAssignments(inner.words), transparent });
    }
  }
  return command;
}

/** A command's words after its leading `NAME=value` assignments. */
export function withoutAssignments(words: string[]): string[] {
  let start = 0;
  while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(words[start]!)) start++;
  return start === 0 ? words : words.slice(start);
}

/**
 * For a line that does not parse: bash may still run the part before the error, and nobody can say
 * exactly what that is, so deny rules are matched against every run of words in it (over-matching, on
 * the safe side). The words only ever feed deny and ask rules, as the line is also unaccounted.
 */
function roughCommands(line: string): BashCommand {
  const tokens = line.split(/[\s;&|()<>`"'{}$\\]+/).filter((token) => token !== "");
  const inner: string[][] = [];
  for (let i = 0; i < tokens.length && i < 2000; i++) inner.push(tokens.slice(i, i + 12));
  return { words: tokens.slice(0, 12), inner, through: [], unresolved: [], paths: [] };
}
