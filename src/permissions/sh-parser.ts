import { lazyRequire } from "../fs/lazy-require.js";

/**
 * A node of mvdan/sh's syntax tree as the transpiled Go code holds it (the `mvdan-sh` package is mvdan/sh
 * compiled to JavaScript by GopherJS): fields by their Go names (`Stmts`, `Cmd`, `Args`, …), slices as
 * `{ $array, $offset, $length }`, strings as one character per byte. Read it through `ShParser`'s helpers.
 * (The package's own wrapper objects convert every field on each access, about 40 µs each; the raw
 * objects are a thousand times faster.)
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
  /** Parses a bash script, comments kept; throws the parser's error (with `Error()`) on a syntax error. */
  parse(source: string): ShNode;
  /** The node's Go type without package and pointer: `CallExpr`, `Lit`, `Stmt`. */
  kind(node: ShNode): string;
  /** A Go slice's elements. */
  list(slice: ShNode): ShNode[];
  /** A Go string (bytes) as text. */
  text(value: string): string;
  /** Whether a pointer or interface field is nil. */
  isNil(node: ShNode): boolean;
  /** Byte offsets of the node in the parsed source. */
  start(node: ShNode): number;
  end(node: ShNode): number;
  /** Visits the node and every node below it, depth first; `visit` returning false skips the children. */
  walk(node: ShNode, visit: (node: ShNode) => boolean): void;
  operators: ShOperators;
}

let loaded: ShParser | undefined;
const mvdanSh = lazyRequire<{ syntax: ShNode }>("mvdan-sh");

const isNil = (node: ShNode): boolean =>
  node === null ||
  node === undefined ||
  typeof node !== "object" ||
  typeof node.constructor?.string !== "string" ||
  node === node.constructor.nil;

const kind = (node: ShNode): string => (node.constructor.string as string).replace(/^\*?syntax\./, "");

const list = (slice: ShNode): ShNode[] =>
  slice?.$array ? slice.$array.slice(slice.$offset, slice.$offset + slice.$length) : [];

function walk(node: ShNode, visit: (node: ShNode) => boolean): void {
  if (isNil(node) || !visit(node)) return;
  for (const key of Object.keys(node)) {
    if (key === "$val") continue;
    const value = node[key];
    if (value === null || typeof value !== "object") continue;
    if (value.$array) {
      for (const item of list(value)) if (isSyntaxNode(item)) walk(item, visit);
    } else if (isSyntaxNode(value)) walk(value, visit);
  }
}

/** A node of the tree, not a position or another helper value. */
const isSyntaxNode = (value: ShNode): boolean =>
  !isNil(value) &&
  /^\*?syntax\./.test(value.constructor.string) &&
  !/^\*?syntax\.Pos$/.test(value.constructor.string);

/**
 * mvdan/sh's bash parser, loaded on first use (about 80 ms and 1.5 MB of JavaScript), so a run that never
 * checks a Bash permission never pays for it. `sh-syntax` (the same parser as WebAssembly) was the first
 * choice, but its 0.7 release serialises statements without their commands (`"Cmd": {}`), which leaves
 * nothing to check rules against; `mvdan-sh` exposes the whole tree, synchronously.
 */
export function shParser(): ShParser {
  if (loaded) return loaded;
  const hadRequire = "require" in globalThis;
  const { syntax } = mvdanSh();
  // The transpiled runtime leaves `require` on the global object; take it back off.
  if (!hadRequire) delete (globalThis as { require?: unknown }).require;
  // One parser, reused: parsing is synchronous and the parser resets itself on each call.
  const parser = syntax.NewParser(syntax.KeepComments(true));
  const parse = (source: string) => parser.Parse(source, "").__internal_object__;
  const first = (source: string) => list(parse(source).Stmts)[0];
  const redirect = new Map<number, string>();
  for (const op of [">", ">>", "<", "<>", ">&", "<&", ">|", "<<<", "&>", "&>>"]) {
    redirect.set(list(first(`a ${op} b`).Redirs)[0].Op, op);
  }
  for (const op of ["<<", "<<-"]) redirect.set(list(first(`a ${op} E\nE\n`).Redirs)[0].Op, op);
  const arithmeticTests = new Set<number>();
  for (const op of ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]) {
    arithmeticTests.add(first(`[[ a ${op} b ]]`).Cmd.X.Op);
  }
  loaded = {
    parse,
    kind,
    list,
    text: (value) => Buffer.from(value, "latin1").toString("utf8"),
    isNil,
    start: (node) => node.Pos().offs,
    end: (node) => node.End().offs,
    walk,
    operators: { redirect, arithmeticTests },
  };
  return loaded;
}
