import { parse } from "shell-quote";

/** The simple commands found in a shell command line. */
export interface SplitCommand {
  /** Each simple command as its words (redirections kept as words: `>`, `out.txt`). */
  commands: string[][];
  /**
   * False when part of the line could not be analysed (backquotes, an unbalanced `$(`, a heredoc whose
   * body expands commands, or a parse error): an allow rule must then not hold, since something would
   * run that no rule was checked against.
   */
  complete: boolean;
}

const SEPARATORS = new Set(["&&", "||", ";", "|", "|&", "&", ";;"]);

/**
 * Reserved words that can open a command without being one: `{ rm x; }`, `then rm x`, `! rm x` run `rm x`.
 * They are dropped from the front of a command, so rules see the program that runs (a deny rule for
 * `rm:*` must hold inside an if-body); a command of nothing but them (`fi`, `}`, `done`) is no command.
 */
const LEADING_KEYWORDS = new Set([
  "{",
  "}",
  "!",
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "while",
  "until",
  "do",
  "done",
  "time",
]);

/** Loop headers that bind a name and run nothing (see `flush`). */
const LOOP_HEADERS = new Set(["for", "select"]);

/**
 * Splits a command line into the simple commands it runs: on `&&`, `||`, `;`, `|`, `&`, newlines, and into
 * subshells `( )`, command substitutions `$( )` (also inside double quotes) and process substitutions
 * `<( )`. Words come from shell-quote's parser. Permission rules are checked against each command, so
 * `npm test && rm -rf /` is two commands, not one that starts with `npm test`.
 */
export function splitShellCommand(line: string): SplitCommand {
  const state = { complete: true, commands: [] as string[][] };
  splitInto(line, state, 0);
  return state;
}

interface State {
  complete: boolean;
  commands: string[][];
}

function splitInto(line: string, state: State, depth: number): void {
  if (depth > 10) {
    state.complete = false;
    return;
  }
  const prepared = prepareLines(line, state);
  let tokens: ReturnType<typeof parse>;
  try {
    // Keep `$NAME` as written rather than expanding it from our own environment.
    tokens = parse(prepared, (name) => `$${name}`);
  } catch {
    state.complete = false;
    return;
  }
  let current: string[] = [];
  const stack: string[][] = [];
  const flush = () => {
    let start = 0;
    while (start < current.length && LEADING_KEYWORDS.has(current[start]!)) start++;
    // `for NAME in WORDS` and `select NAME in WORDS` run nothing themselves (a substitution among the words was
    // split out above as its own command); kept, they would make rules like `Bash(for:*)`.
    const header = LOOP_HEADERS.has(current[start] ?? "") && /^[A-Za-z_]\w*$/.test(current[start + 1] ?? "");
    if (start < current.length && !header) state.commands.push(start === 0 ? current : current.slice(start));
    current = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (typeof token === "string") {
      const next = tokens[i + 1];
      if (token === "$" && typeof next === "object" && "op" in next && (next as { op: string }).op === "(") {
        // `$(...)`: the outer command keeps a placeholder word; the inner one is a command of its own.
        current.push("$(…)");
        stack.push(current);
        current = [];
        i++;
        continue;
      }
      if (token.includes("`")) state.complete = false;
      for (const inner of substitutions(token, state)) splitInto(inner, state, depth + 1);
      current.push(token);
      continue;
    }
    if (!("op" in token)) continue; // a comment
    const { op, pattern } = token as { op: string; pattern?: string };
    if (op === "glob") {
      current.push(pattern ?? "*");
      continue;
    }
    if (SEPARATORS.has(op)) {
      flush();
      continue;
    }
    if (op === "(" || op === "<(" || op === ">(") {
      if (op !== "(") current.push(`${op}…)`);
      stack.push(current);
      current = [];
      continue;
    }
    if (op === ")") {
      flush();
      const outer = stack.pop();
      if (outer === undefined) state.complete = false;
      else current = outer;
      continue;
    }
    // Redirections (`>`, `>>`, `<`, `>&`, `<<<`, …) stay part of the command.
    current.push(op);
  }
  flush();
  if (stack.length > 0) {
    state.complete = false;
    for (const outer of stack) if (outer.length > 0) state.commands.push(outer);
  }
}

/** The bodies of `$( … )` found inside a word (from double quotes); an unbalanced one makes the split incomplete. */
function substitutions(word: string, state: State): string[] {
  const found: string[] = [];
  for (let start = word.indexOf("$("); start !== -1; start = word.indexOf("$(", start + 2)) {
    let depth = 0;
    let end = -1;
    for (let i = start + 1; i < word.length; i++) {
      if (word[i] === "(") depth++;
      else if (word[i] === ")" && --depth === 0) {
        end = i;
        break;
      }
    }
    if (end === -1) {
      state.complete = false;
      break;
    }
    found.push(word.slice(start + 2, end));
    start = end - 1;
  }
  return found;
}

/**
 * Turns unquoted newlines into `;` (shell-quote reads a newline as a space, which would glue two commands
 * into one), joins backslash-newline continuations, and drops heredoc bodies, which are data, not commands
 * (a body that would expand `$(…)` or backquotes makes the split incomplete).
 */
function prepareLines(line: string, state: State): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  const heredocs: Array<{ word: string; strip: boolean; expands: boolean }> = [];
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      out += ch;
      continue;
    }
    if (ch === "\\" && i + 1 < line.length) {
      if (line[i + 1] === "\n") {
        i++;
        continue;
      }
      out += ch + line[i + 1];
      i++;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      out += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
      continue;
    }
    if (ch === "<" && line[i + 1] === "<" && line[i + 2] !== "<") {
      const match = /^<<(-?)\s*(['"]?)([A-Za-z0-9_.-]+)\2/.exec(line.slice(i));
      if (match) {
        heredocs.push({ word: match[3]!, strip: match[1] === "-", expands: match[2] === "" });
        out += `<< ${match[3]}`;
        i += match[0].length - 1;
        continue;
      }
    }
    if (ch === "\n") {
      out += ";";
      // Skip the bodies of the heredocs opened on this line, up to their closing words.
      for (const doc of heredocs) {
        let end = line.indexOf("\n", i + 1);
        while (true) {
          const bodyLine = line.slice(i + 1, end === -1 ? line.length : end);
          const closing = doc.strip ? bodyLine.replace(/^\t+/, "") : bodyLine;
          if (closing === doc.word) break;
          if (doc.expands && (bodyLine.includes("$(") || bodyLine.includes("`"))) state.complete = false;
          if (end === -1) {
            state.complete = false;
            break;
          }
          i = end;
          end = line.indexOf("\n", i + 1);
        }
        i = end === -1 ? line.length : end;
      }
      heredocs.length = 0;
      continue;
    }
    out += ch;
  }
  if (quote) state.complete = false;
  return out;
}
