import type { JsonPath } from "./json-path.js";
import type { StringChunk } from "./stream-event.js";

/** The scanner's own verdict; `JsonAccumulator.finish` pairs it with `JSON.parse`. */
export type ScanVerdict = { status: "ok" } | { status: "incomplete" } | { status: "invalid"; error: string };

/** Returned when a push appends nothing to any string value: shared, frozen, so no allocation. */
export const NO_CHUNKS: readonly StringChunk[] = Object.freeze([]);

// States of the machine. Plain small integers so the dispatch compiles to a jump table.
/** A value must come: at the start, after ':', after ',' in an array. */
const VALUE = 0;
/** Right after '[': a value or ']'. */
const VALUE_OR_CLOSE = 1;
/** Right after '{': a key or '}'. */
const KEY_OR_CLOSE = 2;
/** After ',' in an object: a key must come. */
const KEY = 3;
const COLON = 4;
/** After a value inside a container: ',' or the matching closer. */
const AFTER_VALUE = 5;
/** The top-level value is complete: only whitespace may follow. */
const DONE = 6;
const STRING = 7;
const KEY_STRING = 8;
/** After a backslash; `escapeOf` says whether in a key or a value string. */
const ESCAPE = 9;
/** Inside `\u`, `hexCount` digits read. */
const UNICODE = 10;
const N_MINUS = 11;
const N_ZERO = 12;
const N_INT = 13;
const N_DOT = 14;
const N_FRAC = 15;
const N_EXP = 16;
const N_EXP_SIGN = 17;
const N_EXP_INT = 18;
/** Inside true / false / null, `literalPos` characters matched. */
const LITERAL = 19;
const INVALID = 20;

const OBJECT = 0;
const ARRAY = 1;

export interface JsonScannerOptions {
  /** Track paths and decode string values into chunks (the UI view). Off: verdict only. */
  strings?: boolean;
}

/**
 * A resumable JSON recogniser: `scan` consumes each fragment once, left to right, and keeps just enough state
 * (a stack of open containers, the state of the current token, characters held inside an escape) to continue with
 * the next fragment. Its verdict matches JSON.parse (RFC 8259 as V8 implements it: whitespace is space, tab, LF,
 * CR only; no control characters inside strings; lone surrogates allowed inside strings).
 *
 * With `strings`, it also decodes string values as they arrive and returns them as one chunk per string value per
 * scan, at a frozen snapshot of the value's path. A chunk never ends with a high surrogate while the string is
 * still open: that code unit waits for the next one, so a pair is never split between chunks.
 */
export class JsonScanner {
  /**
   * Characters examined so far, for linearity checks: each once by the character loop (the one that ends a number
   * twice), or twice by the fast path for live value strings (a native search, then JSON.parse).
   */
  examined = 0;
  /** How often the live fast path had to hand a run to the character loop; on valid text, never. */
  fastPathMisses = 0;
  private state = VALUE;
  private readonly track: boolean;
  /** Characters consumed by earlier scans: turns a fragment index into a text offset. */
  private offset = 0;
  private readonly kinds: number[] = [];
  private readonly path: (string | number)[] = [];
  private literal = "";
  private literalPos = 0;
  private hexCount = 0;
  /** The string state an escape returns to. */
  private escapeOf = STRING;
  /** The raw text of the key read so far, and whether it holds an escape. */
  private keyRaw = "";
  private keyEscaped = false;
  /** The raw characters of an escape cut by the end of the previous fragment (a value string's). */
  private carry = "";
  /** A decoded high surrogate held back until the next code unit is known. */
  private held = "";
  private stringPath: JsonPath | undefined;
  private error = "";

  constructor(options: JsonScannerOptions = {}) {
    this.track = options.strings ?? false;
  }

  /** Consumes one fragment; returns the decoded string-value characters it completed (see the class comment). */
  scan(s: string): readonly StringChunk[] {
    const len = s.length;
    let state = this.state;
    if (state === INVALID) {
      this.offset += len;
      return NO_CHUNKS;
    }
    const track = this.track;
    const kinds = this.kinds;
    const path = this.path;
    let out: StringChunk[] | undefined;
    let i = 0;
    // Start of the current string's raw text in this fragment not yet decoded (value) or kept (key).
    let segStart = 0;
    // Whether that raw text holds an escape (so it needs decoding); an escape carried in counts.
    let escaped = this.carry !== "";
    // Where an escape that the escape states handle began in this fragment (-1: it began earlier).
    let escapeStart = -1;
    let examined = 0;
    let fast = track;

    main: while (i < len) {
      examined++;
      let c = s.charCodeAt(i);
      switch (state) {
        case STRING:
        case KEY_STRING: {
          if (state === STRING && fast) {
            // The fast path for a value string's run: find its end natively, then let one JSON.parse of the raw
            // run both validate it (escapes, control characters) and decode it. If that fails, the character loop
            // below takes over from here and reports where.
            let quote = s.indexOf('"', i);
            while (quote !== -1 && isEscaped(s, i, quote)) quote = s.indexOf('"', quote + 1);
            let end = quote === -1 ? len : quote;
            let cut = -1;
            if (quote === -1) {
              // An escape cut by the fragment's end is left to the escape states (and carried to the next scan).
              const last = s.lastIndexOf("\\");
              if (last >= i && isEscaped(s, i, last + 1)) {
                if (last + 1 === len || (s.charCodeAt(last + 1) === 0x75 && last + 6 > len)) cut = end = last;
              }
            }
            let decoded: string | undefined;
            try {
              decoded = JSON.parse(`"${this.carry}${s.slice(segStart, end)}"`) as string;
            } catch {
              // Not again in this scan: the character loop reads the rest, so the cost stays linear.
              fast = false;
              this.fastPathMisses++;
              decoded = undefined;
            }
            if (decoded !== undefined) {
              // Counted once for the search and once for JSON.parse's pass.
              examined += 2 * (end - i) - 1;
              this.carry = "";
              if (quote !== -1) {
                out = this.emitValue(decoded, true, out);
                this.stringPath = undefined;
                state = kinds.length === 0 ? DONE : AFTER_VALUE;
                i = quote + 1;
                continue;
              }
              out = this.emitValue(decoded, false, out);
              segStart = end;
              escaped = false;
              if (cut === -1) {
                i = len;
                break main;
              }
              escapeStart = cut;
              this.escapeOf = STRING;
              state = ESCAPE;
              i = cut + 1;
              continue;
            }
          }
          const from = i;
          // The hot loop: plain characters, and escapes complete in this fragment, are only validated here;
          // a string's raw text is decoded once per scan (see `flushValue`), never character by character.
          for (;;) {
            if (c === 0x22 || c < 0x20) break;
            if (c === 0x5c) {
              const e = i + 1 < len ? s.charCodeAt(i + 1) : -1;
              if (e === 0x75 && i + 5 < len && isHex4(s, i + 2)) i += 6;
              else if (e !== 0x75 && isShortEscape(e)) i += 2;
              else break; // cut by the fragment's end, or invalid: the escape states handle (and report) it
              escaped = true;
              if (i === len) {
                examined += i - from - 1;
                break main;
              }
            } else if (++i === len) {
              // The run's first character was counted on entry; no terminator was examined.
              examined += i - from - 1;
              break main;
            }
            c = s.charCodeAt(i);
          }
          examined += i - from;
          if (c === 0x22) {
            if (state === STRING) {
              if (track) {
                out = this.flushValue(s.slice(segStart, i), escaped, true, out);
                this.stringPath = undefined;
              }
              state = kinds.length === 0 ? DONE : AFTER_VALUE;
            } else {
              if (track) {
                const raw = this.keyRaw + s.slice(segStart, i);
                path[path.length - 1] = escaped || this.keyEscaped ? (JSON.parse(`"${raw}"`) as string) : raw;
                this.keyRaw = "";
                this.keyEscaped = false;
              }
              state = COLON;
            }
            i++;
          } else if (c === 0x5c) {
            escapeStart = i;
            this.escapeOf = state;
            state = ESCAPE;
            i++;
          } else {
            this.fail(`unescaped control character ${describe(c)} in a string at offset ${this.offset + i}`);
            state = INVALID;
            break main;
          }
          continue;
        }
        case ESCAPE:
          if (c === 0x75) {
            state = UNICODE;
            this.hexCount = 0;
            i++;
            continue;
          }
          if (!isShortEscape(c)) {
            this.fail(`invalid escape: ${describe(c)} after a backslash at offset ${this.offset + i}`);
            state = INVALID;
            break main;
          }
          state = this.escapeOf;
          escaped = true;
          i++;
          continue;
        case UNICODE:
          if (hexValue(c) < 0) {
            this.fail(`invalid hex digit ${describe(c)} in a \\u escape at offset ${this.offset + i}`);
            state = INVALID;
            break main;
          }
          i++;
          if (++this.hexCount === 4) {
            state = this.escapeOf;
            escaped = true;
          }
          continue;
        case VALUE:
        case VALUE_OR_CLOSE:
          // JSON's four whitespace characters, tested inline in each state on purpose: an isWhitespace(c) helper
          // measured 4–5% slower on structure-heavy text (a bench of 40,000 small objects in 64-character
          // fragments), though not on one long string (bench/stream-assembly).
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            i++;
            continue;
          }
          switch (c) {
            case 0x22:
              state = STRING;
              segStart = ++i;
              escaped = false;
              continue;
            case 0x7b:
              kinds.push(OBJECT);
              if (track) path.push("");
              state = KEY_OR_CLOSE;
              i++;
              continue;
            case 0x5b:
              kinds.push(ARRAY);
              if (track) path.push(0);
              state = VALUE_OR_CLOSE;
              i++;
              continue;
            case 0x5d:
              if (state === VALUE_OR_CLOSE) {
                state = this.close();
                i++;
                continue;
              }
              break;
            case 0x2d:
              state = N_MINUS;
              i++;
              continue;
            case 0x30:
              state = N_ZERO;
              i++;
              continue;
            case 0x74:
              this.literal = "true";
              break;
            case 0x66:
              this.literal = "false";
              break;
            case 0x6e:
              this.literal = "null";
              break;
            default:
              if (c >= 0x31 && c <= 0x39) {
                state = N_INT;
                i++;
                continue;
              }
          }
          if (c === 0x74 || c === 0x66 || c === 0x6e) {
            this.literalPos = 1;
            state = LITERAL;
            i++;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        case KEY_OR_CLOSE:
        case KEY:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            i++;
            continue;
          }
          if (c === 0x22) {
            state = KEY_STRING;
            segStart = ++i;
            escaped = false;
            continue;
          }
          if (c === 0x7d && state === KEY_OR_CLOSE) {
            state = this.close();
            i++;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        case COLON:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            i++;
            continue;
          }
          if (c === 0x3a) {
            state = VALUE;
            i++;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        case AFTER_VALUE: {
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            i++;
            continue;
          }
          const kind = kinds[kinds.length - 1];
          if (c === 0x2c) {
            if (kind === OBJECT) state = KEY;
            else {
              if (track) (path[path.length - 1] as number)++;
              state = VALUE;
            }
            i++;
            continue;
          }
          if ((c === 0x7d && kind === OBJECT) || (c === 0x5d && kind === ARRAY)) {
            state = this.close();
            i++;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        }
        case DONE:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            i++;
            continue;
          }
          this.fail(`unexpected character ${describe(c)} after the JSON value at offset ${this.offset + i}`);
          state = INVALID;
          break main;
        case N_MINUS:
          if (c === 0x30) state = N_ZERO;
          else if (c >= 0x31 && c <= 0x39) state = N_INT;
          else {
            state = this.unexpected(c, i);
            break main;
          }
          i++;
          continue;
        case N_ZERO:
        case N_INT:
        case N_FRAC:
          if (c >= 0x30 && c <= 0x39 && state !== N_ZERO) {
            i++;
            continue;
          }
          if (c === 0x2e && state !== N_FRAC) {
            state = N_DOT;
            i++;
            continue;
          }
          if (c === 0x65 || c === 0x45) {
            state = N_EXP;
            i++;
            continue;
          }
          // The number ended; this character belongs to what follows (a "01" fails there).
          state = kinds.length === 0 ? DONE : AFTER_VALUE;
          continue;
        case N_DOT:
          if (c >= 0x30 && c <= 0x39) {
            state = N_FRAC;
            i++;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        case N_EXP:
          if (c === 0x2b || c === 0x2d) {
            state = N_EXP_SIGN;
            i++;
            continue;
          }
          if (c >= 0x30 && c <= 0x39) {
            state = N_EXP_INT;
            i++;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        case N_EXP_SIGN:
        case N_EXP_INT:
          if (c >= 0x30 && c <= 0x39) {
            state = N_EXP_INT;
            i++;
            continue;
          }
          if (state === N_EXP_INT) {
            state = kinds.length === 0 ? DONE : AFTER_VALUE;
            continue;
          }
          state = this.unexpected(c, i);
          break main;
        case LITERAL:
          if (c !== this.literal.charCodeAt(this.literalPos)) {
            state = this.unexpected(c, i);
            break main;
          }
          i++;
          if (++this.literalPos === this.literal.length) state = kinds.length === 0 ? DONE : AFTER_VALUE;
          continue;
      }
    }

    if (track && state !== INVALID) {
      const inEscape = state === ESCAPE || state === UNICODE;
      if (state === KEY_STRING || (inEscape && this.escapeOf === KEY_STRING)) {
        // Keys are short: keep their raw text and decode once, at the closing quote.
        this.keyRaw += s.slice(segStart, len);
        this.keyEscaped ||= escaped;
      } else if (state === STRING) {
        out = this.flushValue(s.slice(segStart, len), escaped, false, out);
      } else if (inEscape && this.escapeOf === STRING) {
        // Deliver the text before the cut escape; carry the escape's raw characters to the next fragment.
        if (escapeStart < 0) this.carry += s;
        else {
          out = this.flushValue(s.slice(segStart, escapeStart), escaped, false, out);
          this.carry = s.slice(escapeStart);
        }
      }
    }
    this.state = state;
    this.offset += len;
    this.examined += examined;
    return out ?? NO_CHUNKS;
  }

  /** The verdict on everything scanned so far. */
  verdict(): ScanVerdict {
    const state = this.state;
    if (state === INVALID) return { status: "invalid", error: this.error };
    if (state === DONE) return { status: "ok" };
    // A top-level number is complete at the end of the text ("12" parses though "123" could follow).
    if (
      this.kinds.length === 0 &&
      (state === N_ZERO || state === N_INT || state === N_FRAC || state === N_EXP_INT)
    ) {
      return { status: "ok" };
    }
    return { status: "incomplete" };
  }

  /**
   * Decodes a value string's raw text from this fragment (after any carried escape) and adds it to `out` as the
   * string's one chunk for this scan. Unless the string closed here, a final high surrogate is held back.
   */
  private flushValue(
    raw: string,
    escaped: boolean,
    closed: boolean,
    out: StringChunk[] | undefined,
  ): StringChunk[] | undefined {
    if (this.carry !== "") {
      raw = this.carry + raw;
      this.carry = "";
    }
    // The raw text was validated (complete escapes, no control characters): JSON.parse decodes it natively.
    return this.emitValue(escaped ? (JSON.parse(`"${raw}"`) as string) : raw, closed, out);
  }

  /** Adds decoded value text to `out` as the string's chunk; holds back a final high surrogate unless `closed`. */
  private emitValue(
    decoded: string,
    closed: boolean,
    out: StringChunk[] | undefined,
  ): StringChunk[] | undefined {
    let text = this.held + decoded;
    this.held = "";
    if (!closed) {
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.held = text.slice(-1);
        text = text.slice(0, -1);
      }
    }
    if (text.length === 0) return out;
    this.stringPath ??= Object.freeze(this.path.slice());
    const chunk: StringChunk = { path: this.stringPath, text };
    if (out === undefined) return [chunk];
    out.push(chunk);
    return out;
  }

  /** Pops the innermost container (and its path segment); returns the state after the value it completed. */
  private close(): typeof DONE | typeof AFTER_VALUE {
    this.kinds.pop();
    if (this.track) this.path.pop();
    return this.kinds.length === 0 ? DONE : AFTER_VALUE;
  }

  private fail(message: string): void {
    this.error = message;
  }

  private unexpected(c: number, i: number): typeof INVALID {
    this.fail(`unexpected character ${describe(c)} at offset ${this.offset + i}`);
    return INVALID;
  }
}

/** Whether `c` may follow a backslash as a one-character escape: " \\ / b f n r t. */
function isShortEscape(c: number): boolean {
  return (
    c === 0x22 ||
    c === 0x5c ||
    c === 0x2f ||
    c === 0x62 ||
    c === 0x66 ||
    c === 0x6e ||
    c === 0x72 ||
    c === 0x74
  );
}

/** Whether the character at `at` follows an odd run of backslashes that starts at or after `from`. */
function isEscaped(s: string, from: number, at: number): boolean {
  let k = at - 1;
  while (k >= from && s.charCodeAt(k) === 0x5c) k--;
  return (at - 1 - k) % 2 === 1;
}

function isHex4(s: string, at: number): boolean {
  return (
    hexValue(s.charCodeAt(at)) >= 0 &&
    hexValue(s.charCodeAt(at + 1)) >= 0 &&
    hexValue(s.charCodeAt(at + 2)) >= 0 &&
    hexValue(s.charCodeAt(at + 3)) >= 0
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** `'c'` for a printable character, `U+000A` for the others, so an error message is readable on one line. */
function describe(c: number): string {
  const code = `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
  if (c >= 0x21 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
  if (c >= 0xa1 && (c < 0xd800 || c > 0xdfff)) return `'${String.fromCharCode(c)}' (${code})`;
  return code;
}
