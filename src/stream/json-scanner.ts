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
  /** Characters examined so far (a few are examined twice: the one that ends a number). For linearity checks. */
  examined = 0;
  private state = VALUE;
  private readonly track: boolean;
  /** Characters consumed by earlier scans: turns a fragment index into a text offset. */
  private offset = 0;
  private readonly kinds: number[] = [];
  private readonly path: (string | number)[] = [];
  private literal = "";
  private literalPos = 0;
  private hexCount = 0;
  private hex = 0;
  /** The string state an escape returns to. */
  private escapeOf = STRING;
  /** The decoded key read so far. */
  private key = "";
  /** Decoded value characters not yet delivered (escapes, a held high surrogate). */
  private pending = "";
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
    // Start of the raw (escape-free) run of the current string within this fragment.
    let runStart = 0;
    let examined = 0;

    main: while (i < len) {
      examined++;
      let c = s.charCodeAt(i);
      switch (state) {
        case STRING:
        case KEY_STRING: {
          const from = i;
          while (c !== 0x22 && c !== 0x5c && c >= 0x20) {
            if (++i === len) {
              // The run's first character was counted on entry; no terminator was examined.
              examined += i - from - 1;
              break main;
            }
            c = s.charCodeAt(i);
          }
          examined += i - from;
          if (c === 0x22) {
            if (track) {
              if (state === STRING) {
                const text = this.pending + s.slice(runStart, i);
                this.pending = "";
                if (text.length > 0) {
                  out ??= [];
                  out.push({ path: this.stringPath ?? Object.freeze(path.slice()), text });
                }
                this.stringPath = undefined;
              } else {
                path[path.length - 1] = this.key + s.slice(runStart, i);
                this.key = "";
              }
            }
            i++;
            if (state === KEY_STRING) state = COLON;
            else state = kinds.length === 0 ? DONE : AFTER_VALUE;
          } else if (c === 0x5c) {
            if (track) {
              if (state === STRING) this.pending += s.slice(runStart, i);
              else this.key += s.slice(runStart, i);
            }
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
        case ESCAPE: {
          let decoded: number;
          switch (c) {
            case 0x22:
            case 0x5c:
            case 0x2f:
              decoded = c;
              break;
            case 0x62:
              decoded = 0x08;
              break;
            case 0x66:
              decoded = 0x0c;
              break;
            case 0x6e:
              decoded = 0x0a;
              break;
            case 0x72:
              decoded = 0x0d;
              break;
            case 0x74:
              decoded = 0x09;
              break;
            case 0x75:
              state = UNICODE;
              this.hexCount = 0;
              this.hex = 0;
              i++;
              continue;
            default:
              this.fail(`invalid escape: ${describe(c)} after a backslash at offset ${this.offset + i}`);
              state = INVALID;
              break main;
          }
          if (track) this.append(decoded);
          state = this.escapeOf;
          runStart = ++i;
          continue;
        }
        case UNICODE: {
          const digit = hexValue(c);
          if (digit < 0) {
            this.fail(`invalid hex digit ${describe(c)} in a \\u escape at offset ${this.offset + i}`);
            state = INVALID;
            break main;
          }
          this.hex = this.hex * 16 + digit;
          i++;
          if (++this.hexCount === 4) {
            if (track) this.append(this.hex);
            state = this.escapeOf;
            runStart = i;
          }
          continue;
        }
        case VALUE:
        case VALUE_OR_CLOSE:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            i++;
            continue;
          }
          switch (c) {
            case 0x22:
              state = STRING;
              runStart = ++i;
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
                kinds.pop();
                if (track) path.pop();
                state = kinds.length === 0 ? DONE : AFTER_VALUE;
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
            runStart = ++i;
            continue;
          }
          if (c === 0x7d && state === KEY_OR_CLOSE) {
            kinds.pop();
            if (track) path.pop();
            state = kinds.length === 0 ? DONE : AFTER_VALUE;
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
            kinds.pop();
            if (track) path.pop();
            state = kinds.length === 0 ? DONE : AFTER_VALUE;
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

    if (track) {
      if (state === KEY_STRING) this.key += s.slice(runStart, len);
      else if (state === STRING || ((state === ESCAPE || state === UNICODE) && this.escapeOf === STRING)) {
        // The string continues in a later fragment: deliver what it has so far.
        let text = state === STRING ? this.pending + s.slice(runStart, len) : this.pending;
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          // Hold a high surrogate until its partner (or whatever follows) is known.
          this.pending = text.slice(-1);
          text = text.slice(0, -1);
        } else this.pending = "";
        if (text.length > 0) {
          this.stringPath ??= Object.freeze(path.slice());
          out ??= [];
          out.push({ path: this.stringPath, text });
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

  private append(code: number): void {
    const ch = String.fromCharCode(code);
    if (this.escapeOf === STRING) this.pending += ch;
    else this.key += ch;
  }

  private fail(message: string): void {
    this.error = message;
    this.pending = "";
  }

  private unexpected(c: number, i: number): typeof INVALID {
    this.fail(`unexpected character ${describe(c)} at offset ${this.offset + i}`);
    return INVALID;
  }
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
