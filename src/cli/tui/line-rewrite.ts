import { visibleWidth } from "@mariozechner/pi-tui";

/**
 * The bytes that turn a terminal row showing `old` into one showing `next`, the cursor anywhere on that row: the
 * cells both lines share are left alone, and only what follows the first difference is written (a streamed
 * paragraph's line grows by a few words a frame; a status line's counter changes by a digit).
 *
 * Both lines are whole rows as the screen draws them: every style they set is reset by their end, and the
 * terminal's style is reset when the row is reached. Writing starts at a cell boundary that no escape sequence
 * spans, after which the next character cannot join the one before (it is ASCII, an escape, or the end): the
 * styles and link the shared part left open are set again there. A row that shrinks is erased past its new end.
 */
export function rewriteLine(old: string, next: string): string {
  if (old === next) return "";
  const cut = sharedCut(old, next);
  const shared = next.slice(0, cut);
  const column = cut === 0 ? 0 : visibleWidth(shared);
  const move = column === 0 ? "\r" : `\x1b[${column + 1}G`;
  const erase = visibleWidth(old) > visibleWidth(next) ? "\x1b[K" : "";
  return `${move}${cut === 0 ? "" : openState(shared)}${next.slice(cut)}${erase}`;
}

/** An escape sequence at `at` in `text`: CSI, OSC (ended by BEL or ST) or a two-character one; its length. */
function escapeLength(text: string, at: number): number {
  const kind = text[at + 1];
  if (kind === "[") {
    let end = at + 2;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (code >= 0x40 && code <= 0x7e) return end + 1 - at;
      end++;
    }
    return text.length - at;
  }
  if (kind === "]" || kind === "_" || kind === "P") {
    for (let end = at + 2; end < text.length; end++) {
      if (text[end] === "\x07") return end + 1 - at;
      if (text[end] === "\x1b" && text[end + 1] === "\\") return end + 2 - at;
    }
    return text.length - at;
  }
  return Math.min(2, text.length - at);
}

/** Whether a character at this index starts nothing that could join the character before it. */
function standsAlone(text: string, at: number): boolean {
  return at >= text.length || text.charCodeAt(at) < 0x80;
}

/**
 * Where the shared part of two rows ends, as an index into both: the last boundary between whole characters and
 * whole escape sequences, no further than their first difference, after which both rows go on with a character
 * that stands alone.
 */
function sharedCut(old: string, next: string): number {
  const limit = Math.min(old.length, next.length);
  let first = 0;
  while (first < limit && old.charCodeAt(first) === next.charCodeAt(first)) first++;
  let cut = 0;
  let at = 0;
  while (at < first) {
    const size = next[at] === "\x1b" ? escapeLength(next, at) : (next.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
    if (at + size > first) break;
    at += size;
    if (standsAlone(next, at) && standsAlone(old, at)) cut = at;
  }
  return cut;
}

/** The styles (SGR) set since the last reset and the link (OSC 8) left open in `text`, to set again. */
function openState(text: string): string {
  let styles = "";
  let link = "";
  let at = text.indexOf("\x1b");
  while (at !== -1) {
    const size = escapeLength(text, at);
    const sequence = text.slice(at, at + size);
    if (sequence.startsWith("\x1b[") && sequence.endsWith("m")) {
      styles = sequence === "\x1b[0m" || sequence === "\x1b[m" ? "" : styles + sequence;
    } else if (sequence.startsWith("\x1b]8;")) {
      link = /^\x1b\]8;[^;]*;(?:\x07|\x1b\\)$/.test(sequence) ? "" : sequence;
    }
    at = text.indexOf("\x1b", at + size);
  }
  return styles + link;
}
