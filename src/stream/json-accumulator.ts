import type { JsonResult } from "./json-result.js";
import { JsonScanner, NO_CHUNKS } from "./json-scanner.js";
import type { StringChunk } from "./stream-event.js";

export interface JsonAccumulatorOptions {
  /** Decode string values as they arrive, for a UI (default true). Off: `push` only stores the fragment. */
  live?: boolean;
}

/**
 * Accumulates streamed JSON text (a tool's input, in fragments) and judges it at the end.
 *
 * - `push` costs O(fragment length): nothing seen before is scanned again.
 * - `finish` agrees exactly with `JSON.parse` of the whole text, whatever the fragmentation: `ok` iff JSON.parse
 *   succeeds (with its value); otherwise `incomplete` iff the text is a proper prefix of some valid JSON text
 *   (a cut stream, including empty text), else `invalid` with a message that says where. There is no lenient
 *   repair: a tool must never run on input it did not fully receive.
 *
 * Caveat for UIs: with duplicate keys, chunks for both values arrive at the same path (JSON.parse keeps the last).
 */
export class JsonAccumulator {
  /** Fragments since the last join; joined once when the text is needed (never O(n²)). */
  private readonly parts: string[] = [];
  private joined = "";
  private readonly scanner: JsonScanner | undefined;

  constructor(options: JsonAccumulatorOptions = {}) {
    if (options.live !== false) this.scanner = new JsonScanner({ strings: true });
  }

  /**
   * Appends a raw fragment. Returns the decoded characters appended to string values (not keys) during this push,
   * one chunk per string value, at a frozen snapshot of its path (e.g. `["edits", 0, "new_string"]`); the shared
   * frozen empty array when there are none, or when the accumulator is not live. A fragment may end anywhere,
   * inside an escape or between the halves of a surrogate pair: such characters are delivered with the next push.
   */
  push(fragment: string): readonly StringChunk[] {
    this.parts.push(fragment);
    return this.scanner === undefined ? NO_CHUNKS : this.scanner.scan(fragment);
  }

  /** All text received so far. */
  get text(): string {
    if (this.parts.length > 0) {
      this.joined += this.parts.join("");
      this.parts.length = 0;
    }
    return this.joined;
  }

  /** The verdict on all text received so far (see the class comment). Does not end the accumulator. */
  finish(): JsonResult {
    const raw = this.text;
    let parseError: string;
    try {
      // JSON.parse is the authority for `ok` and builds the value natively; the scanner only explains failures.
      return { status: "ok", value: JSON.parse(raw), raw };
    } catch (error) {
      parseError = error instanceof Error ? error.message : String(error);
    }
    let scanner = this.scanner;
    if (scanner === undefined) {
      scanner = new JsonScanner();
      scanner.scan(raw);
    }
    const verdict = scanner.verdict();
    if (verdict.status === "incomplete") return { status: "incomplete", raw };
    if (verdict.status === "invalid") return { status: "invalid", raw, error: verdict.error };
    // Unreachable while the scanner matches JSON.parse (the tests hold it to that); JSON.parse has the last word.
    return { status: "invalid", raw, error: parseError };
  }
}
