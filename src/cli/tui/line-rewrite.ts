import { visibleWidth } from "@mariozechner/pi-tui";

/**
 * The bytes that turn a terminal row showing `old` into one showing `next`, the cursor anywhere on that row: the
 * cells both lines share are left alone, and only what lies between the first and the last difference is written
 * (a streamed paragraph's line grows by a few words a frame; a spinner's tick changes its first cell and a digit).
 *
 * Both lines are whole rows as the screen draws them: every style they set is reset by their end, and the
 * terminal's style is reset when the row is reached. Writing starts at a cell boundary that no escape sequence
 * spans and that no character joins across (`standsAlone`): the styles and link the shared start left open are
 * set again there. It stops where an end both rows share starts at the same column in the same styles
 * (`sharedTail`), closing what it opened; else it writes to the row's end, and erases past it when it shrank.
 */
export function rewriteLine(old: string, next: string): string {
  if (old === next) return "";
  // A tab, or a character whose width terminals disagree on (an emoji, a joined sequence, a symbol with a
  // variation selector): the columns counted here need not be the terminal's, so the row is drawn whole.
  if (!widthsSettled(old) || !widthsSettled(next)) return `\r\x1b[2K${next}`;
  const cut = sharedCut(old, next);
  const shared = next.slice(0, cut);
  const column = cut === 0 ? 0 : visibleWidth(shared);
  const move = column === 0 ? "\r" : `\x1b[${column + 1}G`;
  const state = cut === 0 ? "" : openState(shared);
  const kept = sharedTail(old, next, cut);
  if (kept !== undefined) {
    // The cells after the change are on the screen already: what the change left open is closed instead.
    const open = openState(next.slice(0, kept));
    return `${move}${state}${next.slice(cut, kept)}${open === "" ? "" : ROW_END}`;
  }
  const erase = visibleWidth(old) > visibleWidth(next) ? "\x1b[K" : "";
  let rest = next.slice(cut);
  // pi-tui ends every row with a reset; written with no style, the row leaves none to reset.
  if (state === "" && rest.endsWith(ROW_END) && !rest.slice(0, -ROW_END.length).includes("\x1b")) {
    rest = rest.slice(0, -ROW_END.length);
  }
  return `${move}${state}${rest}${erase}`;
}

/**
 * Characters whose cells a terminal may count otherwise than `visibleWidth` does: C0 controls (a tab moves to
 * the next stop), the joiner and variation selectors, symbols that an emoji presentation makes wide, emoji and
 * regional indicators, tag characters.
 */
const UNSETTLED =
  /[\x00-\x1a\x1c-\x1f\x7f\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff]|\u200d|[\ufe00-\ufe0f]|[\u{1f000}-\u{1faff}\u{e0000}-\u{e007f}]/u;

/** Whether every character of a row (its escape sequences left out) is as wide on any terminal as counted here. */
function widthsSettled(row: string): boolean {
  let from = 0;
  for (let at = row.indexOf("\x1b"); at !== -1; at = row.indexOf("\x1b", from)) {
    if (UNSETTLED.test(row.slice(from, at))) return false;
    from = at + escapeLength(row, at);
  }
  return !UNSETTLED.test(row.slice(from));
}

/** What pi-tui appends to every row: styles and link reset. */
export const ROW_END = "\x1b[0m\x1b]8;;\x07";

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

/**
 * Whether `at` is between two characters a terminal draws apart: the next does not join the one before (a
 * combining mark, a joiner, a variation selector, a skin tone, a regional indicator's pair, a Hangul jamo, the
 * second half of a surrogate pair) and the one before does not join the next (a joiner, a prepended mark).
 */
function standsAlone(text: string, at: number): boolean {
  if (at >= text.length) return true;
  if (text.charCodeAt(at) < 0x80 && (at === 0 || text.charCodeAt(at - 1) < 0x80)) return true;
  if (joinsBefore(text.codePointAt(at) ?? 0)) return false;
  const before = text.codePointAt(at - 1) ?? 0;
  return !joinsAfter(before >= 0xdc00 && before <= 0xdfff ? (text.codePointAt(at - 2) ?? 0) : before);
}

/** Code points that join the one before them into one cell (or pair of cells). */
const JOINING: ReadonlyArray<readonly [number, number]> = [
  [0x200d, 0x200d],
  [0xfe00, 0xfe0f],
  [0x1160, 0x11ff],
  [0xd7b0, 0xd7ff],
  [0xdc00, 0xdfff],
  [0x1f1e6, 0x1f1ff],
  [0x1f3fb, 0x1f3ff],
  [0xe0020, 0xe007f],
  [0xe0100, 0xe01ef],
];

/** Code points that join the one after them: the joiner, and the marks written before their letter. */
const JOINING_NEXT: ReadonlyArray<readonly [number, number]> = [
  [0x200d, 0x200d],
  [0x0600, 0x0605],
  [0x06dd, 0x06dd],
  [0x070f, 0x070f],
  [0x0890, 0x0891],
  [0x08e2, 0x08e2],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
];

const MARK = /^\p{M}$/u;

function joinsBefore(code: number): boolean {
  return JOINING.some(([from, to]) => code >= from && code <= to) || MARK.test(String.fromCodePoint(code));
}

function joinsAfter(code: number): boolean {
  return JOINING_NEXT.some(([from, to]) => code >= from && code <= to);
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

/**
 * Where, in `next`, an end both rows share starts that need not be written again: at a boundary of whole
 * characters and escape sequences in both, with the cells before it as wide in both and the same styles open, so
 * that the shared end's cells are on the screen as they should be. Undefined when there is none worth keeping.
 */
function sharedTail(old: string, next: string, cut: number): number | undefined {
  const most = Math.min(old.length, next.length) - cut;
  let length = 0;
  while (
    length < most &&
    old.charCodeAt(old.length - 1 - length) === next.charCodeAt(next.length - 1 - length)
  ) {
    length++;
  }
  // Too short a shared end to keep: the rows' boundaries need not be found (most calls, each frame).
  if (length <= KEPT_AT_LEAST) return undefined;
  const start = next.length - length;
  const shift = old.length - next.length;
  const inNext = boundaries(next);
  const inOld = boundaries(old);
  for (let at = start; next.length - at > KEPT_AT_LEAST; at++) {
    if (
      !inNext.has(at) ||
      !inOld.has(at + shift) ||
      !standsAlone(next, at) ||
      !standsAlone(old, at + shift)
    ) {
      continue;
    }
    const before = next.slice(0, at);
    const was = old.slice(0, at + shift);
    if (visibleWidth(before) !== visibleWidth(was) || openState(before) !== openState(was)) return undefined;
    return at;
  }
  return undefined;
}

/** A shared end shorter than this is written again (closing the styles would cost about as much). */
const KEPT_AT_LEAST = 12;

/** The indexes of `text` between whole characters and whole escape sequences. */
function boundaries(text: string): Set<number> {
  const found = new Set<number>([0]);
  let at = 0;
  while (at < text.length) {
    at += text[at] === "\x1b" ? escapeLength(text, at) : (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
    found.add(at);
  }
  return found;
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

/** What each SGR parameter that ends a style turns off (22 ends both bold and dim, 24 every underline). */
const ENDS: Record<string, string[]> = {
  "22": ["1", "2"],
  "23": ["3"],
  "25": ["5", "6"],
  "27": ["7"],
  "28": ["8"],
  "29": ["9"],
  "55": ["53"],
};

/**
 * The styles in effect after a run of SGR sequences: set ones kept, ended ones dropped, colours (foreground,
 * background, underline's: `38;5;n`, `38;2;r;g;b`, `38:2::r:g:b`) and the underline's kind (`4`, `4:3`, `21`) the
 * last set.
 */
class StyleState {
  private readonly flags = new Set<string>();
  private foreground = "";
  private background = "";
  private underlineColour = "";
  private underline = "";
  /** Parameters this does not know, kept in order (never dropped: the state is then only longer). */
  private other: string[] = [];

  apply(parameters: string): void {
    const codes = parameters === "" ? ["0"] : parameters.split(";");
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i] ?? "";
      const [head = "", ...sub] = code.split(":");
      const value = Number(head);
      if (head === "0" || head === "") this.reset();
      else if (head === "38" || head === "48" || head === "58") {
        // 38;5;n or 38;2;r;g;b span the parameters that follow; 38:2::r:g:b is one.
        const span = sub.length > 0 ? 0 : codes[i + 1] === "5" ? 2 : codes[i + 1] === "2" ? 4 : 0;
        const colour = codes.slice(i, i + span + 1).join(";");
        if (head === "38") this.foreground = colour;
        else if (head === "48") this.background = colour;
        else this.underlineColour = colour;
        i += span;
      } else if ((value >= 30 && value <= 37) || (value >= 90 && value <= 97)) this.foreground = code;
      else if (value === 39) this.foreground = "";
      else if ((value >= 40 && value <= 47) || (value >= 100 && value <= 107)) this.background = code;
      else if (value === 49) this.background = "";
      else if (value === 59) this.underlineColour = "";
      else if (head === "4" || head === "21") this.underline = code === "4:0" ? "" : code;
      else if (value === 24) this.underline = "";
      else if (ENDS[head]) for (const ended of ENDS[head]) this.flags.delete(ended);
      else if ((value >= 1 && value <= 9) || value === 53) this.flags.add(head);
      else this.other.push(code);
    }
  }

  private reset(): void {
    this.flags.clear();
    this.foreground = "";
    this.background = "";
    this.underlineColour = "";
    this.underline = "";
    this.other = [];
  }

  toString(): string {
    const codes = [
      ...this.flags,
      this.underline,
      ...this.other,
      this.foreground,
      this.background,
      this.underlineColour,
    ].filter((code) => code !== "");
    return codes.length === 0 ? "" : `\x1b[${codes.join(";")}m`;
  }
}
