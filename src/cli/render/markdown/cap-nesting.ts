/** Container markers (quote `>`, bullet, number) kept at the start of one line; more are dropped. */
export const MAX_MARKERS = 16;
/** Indentation kept at the start of a line, in characters; more is cut to this. */
export const MAX_INDENT = 120;

const MARKER = /[ \t]*(?:>|(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$))/y;

/**
 * `text` with each line's nesting capped: at most `MAX_MARKERS` container markers (`> > - 1. …`) and
 * `MAX_INDENT` characters of indentation at its start. The Markdown lexer recurses once per level and re-reads
 * each level's content, so a hostile line of ten thousand `>` would overflow the stack, and deep nesting costs
 * time per level; no answer meant for a person nests deeper than this. Keeps the number of lines.
 */
export function capNesting(text: string): string {
  if (!/^[ \t]*(?:[>\-+*\d]|[ \t]{100})/m.test(text)) return text;
  return text
    .split("\n")
    .map((line) => {
      let end = 0;
      let count = 0;
      MARKER.lastIndex = 0;
      while (count <= MAX_MARKERS) {
        MARKER.lastIndex = end;
        const m = MARKER.exec(line);
        if (!m) break;
        count++;
        if (count <= MAX_MARKERS) end = MARKER.lastIndex;
      }
      if (count > MAX_MARKERS) {
        // Drop the markers past the cap (and anything up to the next non-marker text).
        MARKER.lastIndex = end;
        let rest = end;
        for (let m = MARKER.exec(line); m; m = MARKER.exec(line)) rest = MARKER.lastIndex;
        line = line.slice(0, end) + line.slice(rest);
      }
      const indent = /^[ \t]*/.exec(line)?.[0].length ?? 0;
      return indent > MAX_INDENT ? line.slice(0, MAX_INDENT) + line.slice(indent) : line;
    })
    .join("\n");
}
