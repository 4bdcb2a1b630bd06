import { createRequire } from "node:module";

/**
 * A node of mvdan/sh's syntax tree as the `mvdan-sh` package (mvdan/sh transpiled to JavaScript) hands it
 * out: Go structs whose fields are read by name (`Stmts`, `Cmd`, `Args`, …) and whose kind is
 * `syntax.NodeType(node)`. Field types differ per node kind, so they are read loosely here and checked by
 * the walker in parse-bash-command.ts.
 */
// biome-ignore lint/suspicious/noExplicitAny: GopherJS objects have no declared types
export type ShNode = any;

/** The operators the walker needs, read from the parser itself (mvdan/sh numbers its tokens per release). */
export interface ShOperators {
  redirect: Map<number, string>;
  /** `[[ a -eq b ]]` and its kin: their operands are evaluated as arithmetic (which can run commands). */
  arithmeticTests: Set<number>;
}

export interface ShParser {
  /** Parses a bash script, comments kept; throws the parser's error (with `Error()` and `Pos`) on a syntax error. */
  parse(source: string): ShNode;
  nodeType(node: ShNode): string;
  walk(node: ShNode, visit: (node: ShNode) => boolean): void;
  operators: ShOperators;
}

let loaded: ShParser | undefined;

/**
 * mvdan/sh's bash parser, loaded on first use (about 80 ms and 1.5 MB of JavaScript), so a run that never
 * checks a Bash permission never pays for it. `sh-syntax` (the same parser as WebAssembly) was the first
 * choice, but its 0.7 release serialises statements without their commands (`"Cmd": {}`), which leaves
 * nothing to check rules against; `mvdan-sh` exposes the whole tree, synchronously.
 */
export function shParser(): ShParser {
  if (loaded) return loaded;
  const hadRequire = "require" in globalThis;
  const { syntax } = createRequire(import.meta.url)("mvdan-sh") as { syntax: ShNode };
  // The transpiled runtime leaves `require` on the global object; take it back off.
  if (!hadRequire) delete (globalThis as { require?: unknown }).require;
  const parse = (source: string) => syntax.NewParser(syntax.KeepComments(true)).Parse(source, "");
  const redirect = new Map<number, string>();
  for (const op of [">", ">>", "<", "<>", ">&", "<&", ">|", "<<<", "&>", "&>>"]) {
    redirect.set(parse(`a ${op} b`).Stmts[0].Redirs[0].Op, op);
  }
  for (const op of ["<<", "<<-"]) redirect.set(parse(`a ${op} E\nE\n`).Stmts[0].Redirs[0].Op, op);
  const arithmeticTests = new Set<number>();
  for (const op of ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]) {
    arithmeticTests.add(parse(`[[ a ${op} b ]]`).Stmts[0].Cmd.X.Op);
  }
  loaded = {
    parse,
    nodeType: (node) => syntax.NodeType(node),
    walk: (node, visit) => syntax.Walk(node, (child: ShNode) => (child ? visit(child) : true)),
    operators: { redirect, arithmeticTests },
  };
  return loaded;
}
