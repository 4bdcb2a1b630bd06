import type { ShNode, ShParser } from "./sh-parser.js";

/** A shell word as bash would see it before running the command, as far as it can be known in advance. */
export interface ShellWord {
  /** The word's value; an expansion whose value is unknown (`$HOME`, `$(ls)`) stands as written. */
  value: string;
  /** Part of the value is only known when the line runs (a parameter, a substitution, arithmetic). */
  dynamic: boolean;
  /** Unquoted glob, brace or tilde syntax that bash may expand into other words. */
  pattern: boolean;
}

/** Reads a Word node: quotes removed, escapes applied, `$'…'` decoded. `source` is the parsed text as bytes. */
export function readWord(word: ShNode, parser: ShParser, source: Buffer): ShellWord {
  const result: ShellWord = { value: "", dynamic: false, pattern: false };
  const text = (node: ShNode) => source.subarray(parser.start(node), parser.end(node)).toString("utf8");
  parser.list(word.Parts).forEach((part, index) => {
    switch (parser.kind(part)) {
      case "Lit": {
        const raw = parser.text(part.Value);
        if (GLOB.test(unescapedOnly(raw)) || (index === 0 && raw.startsWith("~"))) result.pattern = true;
        result.value += raw.replace(/\\\n/g, "").replace(/\\([\s\S])/g, "$1");
        break;
      }
      case "SglQuoted":
        result.value += part.Dollar ? decodeAnsiC(parser.text(part.Value)) : parser.text(part.Value);
        break;
      case "DblQuoted":
        for (const inner of parser.list(part.Parts)) {
          const heredoc =
            parser.kind(inner) === "CmdSubst" ? heredocOutput(inner, parser, source) : undefined;
          if (parser.kind(inner) === "Lit") {
            result.value += parser
              .text(inner.Value)
              .replace(/\\\n/g, "")
              .replace(/\\([$`"\\])/g, "$1");
          } else if (heredoc !== undefined) {
            result.value += heredoc;
          } else {
            result.dynamic = true;
            result.value += text(inner);
          }
        }
        break;
      case "ExtGlob":
      case "BraceExp":
        result.pattern = true;
        result.value += text(part);
        break;
      default:
        // ParamExp, CmdSubst, ArithmExp, ProcSubst: known only when the line runs.
        result.dynamic = true;
        result.value += text(part);
    }
  });
  return result;
}

/**
 * What `"$(cat <<'EOF' … EOF)"` prints (the way models write a commit message): the here-document's text, when it
 * holds no expansion. Undefined for any other substitution.
 */
function heredocOutput(subst: ShNode, parser: ShParser, source: Buffer): string | undefined {
  const statements = parser.list(subst.Stmts);
  if (statements.length !== 1) return undefined;
  const [statement] = statements;
  if (parser.isNil(statement.Cmd) || parser.kind(statement.Cmd) !== "CallExpr") return undefined;
  const call = statement.Cmd;
  const args = parser.list(call.Args);
  if (parser.list(call.Assigns).length > 0 || args.length !== 1) return undefined;
  const name = readWord(args[0], parser, source);
  const redirects = parser.list(statement.Redirs);
  if (name.dynamic || name.value !== "cat" || redirects.length !== 1) return undefined;
  const [redirect] = redirects;
  const op = parser.operators.redirect.get(redirect.Op);
  if ((op !== "<<" && op !== "<<-") || parser.isNil(redirect.Hdoc)) return undefined;
  let body = source.subarray(parser.start(redirect.Hdoc), parser.end(redirect.Hdoc)).toString("utf8");
  if (op === "<<-") body = body.replace(/^\t+/gm, "");
  // The node ends after the closing delimiter's line; a substitution drops the trailing new lines.
  const delimiter = readWord(redirect.Word, parser, source).value;
  const lines = body.split("\n");
  while (lines.length > 0 && (lines[lines.length - 1] === "" || lines[lines.length - 1] === delimiter)) {
    const last = lines.pop();
    if (last === delimiter) break;
  }
  body = lines.join("\n").replace(/\n+$/, "");
  const quoted = parser.list(redirect.Word.Parts).some((part) => parser.kind(part) !== "Lit");
  return quoted || !/[$`\\]/.test(body) ? body : undefined;
}

/** Glob and brace syntax bash expands: `*`, `?`, `[…]`, `{a,b}`, `{1..3}` (a lone `[` or `{` stays as written). */
const GLOB = /[*?]|\[[^\]]*\]|\{[^}]*(,|\.\.)[^}]*\}/;

/** The characters of a literal that are not escaped by a backslash. */
function unescapedOnly(raw: string): string {
  return raw.replace(/\\[\s\S]/g, "");
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes the body of bash's ANSI-C quoting `$'…'`. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|[\s\S])/g,
    (match, sequence: string) => {
      const head = sequence[0]!;
      if (head === "x" || head === "u" || head === "U") {
        const code = Number.parseInt(sequence.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : match;
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(sequence, 8) & 0xff);
      if (head === "c" && sequence.length === 2) return String.fromCharCode(sequence.charCodeAt(1) & 0x1f);
      return SIMPLE_ESCAPES[head] ?? match;
    },
  );
}
