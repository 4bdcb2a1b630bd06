/**
 * Text from the model, a tool, a skill file or a server, made safe to print at a terminal. Such text may hold
 * control sequences that the terminal would obey: set the window title (OSC 0), write the clipboard (OSC 52),
 * move the cursor and overwrite what is on screen (CSI), hide text (a carriage return, backspaces), or talk to
 * the terminal in ways that differ from one emulator to the next (DCS, APC, 8-bit C1 controls such as U+009B).
 * Everything of that kind is removed; `\n` and `\t` stay. The renderer adds its own colours afterwards.
 */

/** Past this many characters an unfinished sequence is not held for the next chunk: its introducer is dropped. */
const MAX_PENDING = 4096;

const ESC = 0x1b;
const BEL = 0x07;
const ST_8BIT = 0x9c;

/** C0 controls but `\t` and `\n`, DEL and the C1 range: where a scan must stop and look. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The end of a control string (OSC, DCS, SOS, PM, APC) that starts at `from`: after BEL or ST; -1 if not there yet. */
function stringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BEL || c === ST_8BIT) return i + 1;
    if (c === ESC) {
      if (i + 1 >= text.length) return -1;
      if (text[i + 1] === "\\") return i + 2;
    }
  }
  return -1;
}

/** The end of a CSI sequence whose parameters start at `from`; -1 if not there yet. */
function csiEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return i + 1;
    if (c < 0x20 || c > 0x3f) return i; // malformed: what came so far is dropped, the rest is read anew
    i++;
  }
  return -1;
}

/**
 * Where the control sequence that starts at `i` ends (the index after it), or -1 when the text ends first and
 * more may follow. A lone control character is a sequence of one.
 */
function sequenceEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === ESC) {
    if (i + 1 >= text.length) return -1;
    const n = text.charCodeAt(i + 1);
    if (n === 0x5b) return csiEnd(text, i + 2); // ESC [
    if (n === 0x5d || n === 0x50 || n === 0x58 || n === 0x5e || n === 0x5f) return stringEnd(text, i + 2); // ] P X ^ _
    if (n >= 0x20 && n <= 0x2f) {
      // ESC, intermediates, a final byte: charset selection (ESC ( B) and the like.
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
      if (j >= text.length) return -1;
      const f = text.charCodeAt(j);
      return f >= 0x30 && f <= 0x7e ? j + 1 : j;
    }
    if (n >= 0x30 && n <= 0x7e) return i + 2; // ESC 7, ESC c (reset), ESC M …
    return i + 1; // a lone ESC
  }
  if (c === 0x9b) return csiEnd(text, i + 1);
  if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) return stringEnd(text, i + 1);
  return i + 1;
}

/**
 * Removes control sequences from a stream of text that may cut a sequence anywhere: what may be the start of
 * one is held until the next chunk. One filter per stream (a text block, a command's output).
 */
export class TerminalTextFilter {
  #pending = "";

  /** The safe part of `chunk` (and of what was held), holding back an unfinished sequence. */
  push(chunk: string): string {
    return this.#scan(this.#pending + chunk, false);
  }

  /** The end of the stream: what was held is let go, its unfinished sequence dropped. */
  flush(): string {
    const rest = this.#pending;
    this.#pending = "";
    return rest === "" ? "" : this.#scan(rest, true);
  }

  #scan(text: string, final: boolean): string {
    this.#pending = "";
    let out = "";
    let from = 0;
    CONTROL.lastIndex = 0;
    for (let match = CONTROL.exec(text); match; match = CONTROL.exec(text)) {
      const i = match.index;
      if (i < from) continue;
      out += text.slice(from, i);
      const c = text.charCodeAt(i);
      if (c === 0x0d) {
        // CRLF is a line end; a lone CR (which would let later text overwrite this line) goes.
        if (i + 1 >= text.length && !final) {
          this.#pending = "\r";
          return out;
        }
        from = i + 1;
        CONTROL.lastIndex = from;
        continue;
      }
      let end = sequenceEnd(text, i);
      if (end === -1) {
        if (!final && text.length - i <= MAX_PENDING) {
          this.#pending = text.slice(i);
          return out;
        }
        // Never finished: only the introducer goes, what followed it is shown as text.
        end = i + (c === ESC ? 2 : 1);
      }
      from = Math.min(end, text.length);
      CONTROL.lastIndex = from;
    }
    return out + text.slice(from);
  }
}

/** `text` without control sequences (see `TerminalTextFilter`), as one whole piece. */
export function stripControls(text: string): string {
  const filter = new TerminalTextFilter();
  return filter.push(text) + filter.flush();
}

/** Bidirectional overrides and isolates: they reorder what a line shows without changing what it holds. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character (and bidirectional override) shown as an escape (`\x1b`, `\r`, `\u202e`)
 * instead of removed: for what the user must judge exactly, such as a command a permission question asks about.
 */
export function showControls(text: string): string {
  return text.replace(CONTROL, escapeChar).replace(BIDI, escapeChar);
}

function escapeChar(c: string): string {
  if (c === "\r") return "\\r";
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `JSON.stringify` for a terminal: it escapes C0 controls itself, but leaves DEL and the C1 range (U+009B is a
 * CSI) as they are; these are escaped too (`\u009b`), which is the same JSON.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
  );
}
