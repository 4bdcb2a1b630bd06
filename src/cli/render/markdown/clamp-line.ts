import { displayWidth, graphemes } from "../display-width.js";

/** The renderer's own sequences in a drawn line: SGR and OSC 8 (the text itself holds none). */
const SEQUENCE = /\u001b\[[0-9;]*m|\u001b\]8;;[^\u001b]*\u001b\\/g;

/** `line` without the renderer's own sequences: what a terminal shows of it, to measure. */
export function stripSequences(line: string): string {
  return line.replace(SEQUENCE, "");
}

/**
 * `line` cut to `width` cells when wider, its escape sequences kept whole and every style closed after the
 * cut. The last guard of the width contract: block renderers fit their text, but a prefix (a quote's bar, a
 * list's bullet, a table's frame) can outgrow a terminal a few cells wide.
 */
export function clampLine(line: string, width: number): string {
  if (displayWidth(stripSequences(line)) <= width) return line;
  let out = "";
  let used = 0;
  let at = 0;
  let styled = false;
  SEQUENCE.lastIndex = 0;
  const text = (piece: string): boolean => {
    for (const g of graphemes(piece)) {
      const w = displayWidth(g);
      if (used + w > width) return false;
      out += g;
      used += w;
    }
    return true;
  };
  for (let m = SEQUENCE.exec(line); m; m = SEQUENCE.exec(line)) {
    if (!text(line.slice(at, m.index))) return close(out, styled);
    out += m[0];
    styled = true;
    at = m.index + m[0].length;
  }
  text(line.slice(at));
  return close(out, styled);
}

function close(out: string, styled: boolean): string {
  return styled ? `${out}\u001b[0m\u001b]8;;\u001b\\` : out;
}
