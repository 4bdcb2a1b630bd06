/** JSON that could not be read even as JSON with comments: the message, and the 1-based line at fault. */
export class JsoncError extends Error {
  override name = "JsoncError";
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

/**
 * Parses JSON with comments (JSONC), as Claude Code reads its settings: `//` and `/* … *\/` comments and a comma
 * before `]` or `}` are allowed, a UTF-8 byte order mark is skipped. Comments and such commas are blanked out
 * (newlines kept, so positions stay true) and the rest goes to `JSON.parse`. Throws a `JsoncError` naming the
 * line of the first error.
 */
export function parseJsonc(text: string): unknown {
  const stripped = stripJsonc(text.replace(/^\uFEFF/, ""));
  try {
    return JSON.parse(stripped);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1];
    const line = position === undefined ? undefined : lineAt(stripped, Number(position));
    throw new JsoncError(message, line);
  }
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * The 1-based line where `needle` first occurs in `text` (at or after `from`), or undefined: settings warnings
 * point at a rule or a key this way.
 */
export function lineOf(text: string, needle: string, from = 0): number | undefined {
  const at = text.indexOf(needle, from);
  return at < 0 ? undefined : lineAt(text, at);
}

/** Blanks comments and trailing commas outside strings with spaces (newlines kept). */
export function stripJsonc(text: string): string {
  const out: string[] = [];
  /** Index in `out` of the last comma outside a string, while only blanks and comments follow it. */
  let pendingComma = -1;
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"' && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      out.push(text.slice(i, j + 1));
      pendingComma = -1;
      i = j + 1;
      continue;
    }
    if (char === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      out.push(blank(text.slice(i, stop)));
      i = stop;
      continue;
    }
    if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out.push(blank(text.slice(i, stop)));
      i = stop;
      continue;
    }
    if (char === ",") {
      pendingComma = out.length;
      out.push(char);
      i++;
      continue;
    }
    if ((char === "]" || char === "}") && pendingComma >= 0) out[pendingComma] = " ";
    if (!/\s/.test(char)) pendingComma = -1;
    out.push(char);
    i++;
  }
  return out.join("");
}
