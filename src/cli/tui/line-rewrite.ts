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
  const state = cut === 0 ? "" : openState(shared);
  let rest = next.slice(cut);
  // pi-tui ends every row with a reset; written with no style, the row leaves none to reset.
  if (state === "" && rest.endsWith(ROW_END) && !rest.slice(0, -ROW_END.length).includes("\x1b")) {
    rest = rest.slice(0, -ROW_END.length);
  }
  return `${move}${state}${rest}${erase}`;
}

/** What pi-tui appends to every row: styles and link reset. */
const ROW_END = "\x1b[0m\x1b]8;;\x07";

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

/** The styles (SGR) and the link (OSC 8) that `text` leaves open, to set again where writing resumes. */
function openState(text: string): string {
  const styles = new StyleState();
  let link = "";
  let at = text.indexOf("\x1b");
  while (at !== -1) {
    const size = escapeLength(text, at);
    const sequence = text.slice(at, at + size);
    if (sequence.startsWith("\x1b[") && sequence.endsWith("m")) styles.apply(sequence.slice(2, -1));
    else if (sequence.startsWith("\x1b]8;")) {
      link = /^\x1b\]8;[^;]*;(?:\x07|\x1b\\)$/.test(sequence) ? "" : sequence;
    }
    at = text.indexOf("\x1b", at + size);
  }
  return styles.toString() + link;
}

/** What each SGR parameter that ends a style turns off (22 ends both bold and dim). */
const ENDS: Record<string, string[]> = {
  "22": ["1", "2"],
  "23": ["3"],
  "24": ["4"],
  "25": ["5"],
  "27": ["7"],
  "28": ["8"],
  "29": ["9"],
};

/** The styles in effect after a run of SGR sequences: set ones kept, ended ones dropped, colours the last. */
class StyleState {
  private readonly flags = new Set<string>();
  private foreground = "";
  private background = "";
  /** Parameters this does not know, kept in order (never dropped: the state is then only longer). */
  private other: string[] = [];

  apply(parameters: string): void {
    const codes = parameters === "" ? ["0"] : parameters.split(";");
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i] ?? "";
      const value = Number(code);
      if (code === "0" || code === "") this.reset();
      else if (code === "38" || code === "48") {
        // 38;5;n or 38;2;r;g;b: the colour spans the parameters that follow.
        const span = codes[i + 1] === "5" ? 2 : codes[i + 1] === "2" ? 4 : 0;
        const colour = codes.slice(i, i + span + 1).join(";");
        if (code === "38") this.foreground = colour;
        else this.background = colour;
        i += span;
      } else if ((value >= 30 && value <= 37) || (value >= 90 && value <= 97)) this.foreground = code;
      else if (value === 39) this.foreground = "";
      else if ((value >= 40 && value <= 47) || (value >= 100 && value <= 107)) this.background = code;
      else if (value === 49) this.background = "";
      else if (ENDS[code]) for (const ended of ENDS[code]) this.flags.delete(ended);
      else if (value >= 1 && value <= 9) this.flags.add(code);
      else this.other.push(code);
    }
  }

  private reset(): void {
    this.flags.clear();
    this.foreground = "";
    this.background = "";
    this.other = [];
  }

  toString(): string {
    const codes = [...this.flags, ...this.other, this.foreground, this.background].filter(
      (code) => code !== "",
    );
    return codes.length === 0 ? "" : `\x1b[${codes.join(";")}m`;
  }
}
