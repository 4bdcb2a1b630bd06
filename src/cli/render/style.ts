import picocolors from "picocolors";

/**
 * ANSI styling that turns itself off for pipes and under NO_COLOR. Each function wraps its text in one SGR
 * pair and restores an enclosing style that shares its closing code (bold inside dim stays right), as
 * picocolors does; with colours off each returns its text unchanged.
 */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  strikethrough(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
  gray(text: string): string;
  /** Whether the functions above add escape sequences at all. */
  readonly enabled: boolean;
}

/**
 * The styles, on or off. Explicit rather than detected here: the caller knows which stream the text goes to
 * (`colorEnabled(stream)`), and `node:util.styleText` would look at stdout whatever the stream (and, in Node
 * 20, drops a nested style's codes), so picocolors it is.
 */
export function createStyle(enabled: boolean): Style {
  const c = picocolors.createColors(enabled);
  return {
    dim: c.dim,
    bold: c.bold,
    italic: c.italic,
    underline: c.underline,
    strikethrough: c.strikethrough,
    red: c.red,
    green: c.green,
    yellow: c.yellow,
    blue: c.blue,
    magenta: c.magenta,
    cyan: c.cyan,
    gray: c.gray,
    enabled,
  };
}

/** Colours for `stream`: off under NO_COLOR, on under FORCE_COLOR (but `0`), else when it is a terminal. */
export function colorEnabled(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true;
}
