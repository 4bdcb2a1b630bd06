import { stripControls } from "./terminal-text.js";

/** Back to the line's start and erase it: what draws a status line in place, or takes it away. */
export const ERASE_LINE = "\r\u001b[2K";

/** Past this many characters a line without a newline is not kept longer: only its start can be shown. */
const MAX_PARTIAL = 4096;

/**
 * The last non-empty line of a stream of output, as a terminal would show it: a carriage return starts the
 * line again (a progress bar), ANSI sequences and other control characters are dropped. Holds one line, so
 * a command printing megabytes costs no memory here.
 */
export class LastLine {
  #partial = "";
  #last = "";

  push(text: string): void {
    const pieces = text.split("\n");
    pieces.forEach((piece, i) => {
      if (i > 0) {
        const done = visible(this.#partial);
        if (done !== "") this.#last = done;
        this.#partial = "";
      }
      this.#partial += piece;
      if (this.#partial.length > MAX_PARTIAL) {
        const restart = this.#partial.lastIndexOf("\r");
        this.#partial = this.#partial.slice(restart + 1, restart + 1 + MAX_PARTIAL);
      }
    });
  }

  /** The line being written when it has text, else the last complete one with text ("" when none yet). */
  get text(): string {
    return visible(this.#partial) || this.#last;
  }
}

function visible(line: string): string {
  const trimmed = line.replace(/\r+$/, ""); // a CRLF line end is no progress bar
  const shown = trimmed.slice(trimmed.lastIndexOf("\r") + 1);
  return stripControls(shown)
    .replace(/\t/g, " ")
    .replace(/\p{Cc}/gu, "")
    .trim();
}

/**
 * `text` cut to fit in `width` terminal cells, with `…` where it was cut (by display width: see
 * `display-width.ts`).
 */
export { fitWidth } from "./display-width.js";
