import type { WriteStream } from "node:fs";
import { TailBuffer } from "./tail-buffer.js";

/** What a `CappedOutput` kept. */
export interface CappedOutputResult {
  /** The whole output when it fit, else its head and tail around a marker line. */
  text: string;
  truncated: boolean;
  totalChars: number;
  /** Where the output was saved; set only when it did not fit and the file could be written. */
  fullOutputPath?: string;
  /**
   * Set when even the saved copy had to be cut (it is capped at `maxSpillBytes`): the bytes left out of its
   * middle. The file then holds the output's beginning, a marker line, and its last bytes.
   */
  spillOmittedBytes?: number;
  /** Why the output could not be saved, if it could not. */
  saveError?: string;
}

/** Where a `CappedOutput` saves an output that did not fit; `finish` is told its final size. */
export interface SpillTarget {
  path: string;
  stream: WriteStream;
  finish?: (bytes: number) => void;
}

export interface CappedOutputOptions {
  /** Characters kept for the result: all of the output while it fits, else the first and last halves. */
  maxChars: number;
  /** Opens the file the output is saved to; called once, at the first overflow. May throw. */
  openSpill: () => SpillTarget;
  /** Most bytes the saved copy may take on disk. Default 64 MiB. */
  maxSpillBytes?: number;
}

/** Default cap on one saved output. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024;

/**
 * Collects a stream of output in bounded memory: all of it while it fits in `maxChars`; past that, the first
 * half and a rolling last half, while the output is also saved, in order, to a file (`openSpill`, called at the
 * first overflow) so the model can Read the middle if it needs it without one call flooding its context.
 *
 * Bounded everywhere: the saved copy stops growing at `maxSpillBytes` (its first bytes, then a marker and its
 * last MiB, written at the end); memory holds the result's head and tail and at most one MiB of the file's tail.
 * `push` returns false while the file has more than its high-water mark waiting to be written: the caller should
 * pause its source until `onDrain` calls back (back-pressure, so a fast command never buffers gigabytes).
 */
export class CappedOutput {
  private buffer = "";
  private head = "";
  private readonly tail: TailBuffer;
  private total = 0;
  private spilled = false;
  private spill: SpillTarget | undefined;
  private error: Error | undefined;
  /** Bytes written to the file so far (its head part). */
  private fileBytes = 0;
  /** Bytes of the whole output, counted once it spills (the part before it was in `buffer`). */
  private totalBytes = 0;
  /** Once the file's head part is full: the output's last characters, written after the marker at the end. */
  private fileTail: TailBuffer | undefined;
  private readonly maxChars: number;
  private readonly maxSpillBytes: number;
  private readonly tailBytes: number;

  constructor(private readonly options: CappedOutputOptions) {
    this.maxChars = options.maxChars;
    this.maxSpillBytes = options.maxSpillBytes ?? MAX_SPILL_BYTES;
    this.tailBytes = Math.min(1024 * 1024, Math.floor(this.maxSpillBytes / 4));
    this.tail = new TailBuffer(Math.floor(this.maxChars / 2));
  }

  /** Adds output. False asks the caller to pause its source until `onDrain` calls back. */
  push(text: string): boolean {
    if (text.length === 0) return true;
    this.total += text.length;
    if (!this.spilled) {
      this.buffer += text;
      if (this.buffer.length <= this.maxChars) return true;
      text = this.buffer;
      this.buffer = "";
      this.startSpill();
    }
    const half = Math.floor(this.maxChars / 2);
    if (this.head.length < half) this.head += text.slice(0, half - this.head.length);
    this.tail.push(text);
    return this.save(text);
  }

  /** Calls `resume` once the file has written what it holds (at once if nothing is waiting, or it failed). */
  onDrain(resume: () => void): void {
    const stream = this.spill?.stream;
    if (!stream || this.error || !stream.writableNeedDrain) {
      resume();
      return;
    }
    let called = false;
    const once = () => {
      if (called) return;
      called = true;
      stream.off("drain", once);
      stream.off("error", once);
      stream.off("close", once);
      resume();
    };
    stream.on("drain", once);
    stream.on("error", once);
    stream.on("close", once);
  }

  async finish(): Promise<CappedOutputResult> {
    if (!this.spilled) return { text: this.buffer, truncated: false, totalChars: this.total };
    const omittedBytes = this.fileTail ? this.closeCappedFile() : undefined;
    const spill = this.spill;
    if (spill && !this.error) {
      await new Promise<void>((resolve) => {
        spill.stream.once("error", () => resolve());
        spill.stream.end(() => resolve());
      });
      spill.finish?.(this.fileBytes);
    }
    // Cut at line breaks near the edges, so the model does not see half lines.
    let head = this.head;
    const headBreak = head.lastIndexOf("\n");
    if (headBreak > head.length * 0.8) head = head.slice(0, headBreak + 1);
    let tail = this.tail.toString();
    const tailBreak = tail.indexOf("\n");
    if (tailBreak !== -1 && tailBreak < tail.length * 0.2) tail = tail.slice(tailBreak + 1);
    const omitted = this.total - head.length - tail.length;
    const separator = head.endsWith("\n") ? "" : "\n";
    const result: CappedOutputResult = {
      text: `${head}${separator}... [${omitted} characters omitted] ...\n${tail}`,
      truncated: true,
      totalChars: this.total,
    };
    if (this.error) result.saveError = this.error.message;
    else if (spill) {
      result.fullOutputPath = spill.path;
      if (omittedBytes !== undefined) result.spillOmittedBytes = omittedBytes;
    }
    return result;
  }

  private startSpill(): void {
    this.spilled = true;
    try {
      this.spill = this.options.openSpill();
      this.spill.stream.on("error", (error) => {
        this.error = error;
      });
    } catch (error) {
      this.error = error as Error;
    }
  }

  /** Writes to the file's head part until it is full, then keeps only the tail. */
  private save(text: string): boolean {
    const stream = this.spill?.stream;
    if (!stream || this.error) return true;
    if (this.fileTail) {
      this.totalBytes += Buffer.byteLength(text, "utf8");
      this.fileTail.push(text);
      return true;
    }
    const bytes = Buffer.from(text, "utf8");
    this.totalBytes += bytes.length;
    const room = this.maxSpillBytes - this.tailBytes - this.fileBytes;
    if (bytes.length <= room) {
      this.fileBytes += bytes.length;
      return stream.write(bytes);
    }
    // The head part is full: write what fits (whole characters), keep the rest as the start of the tail.
    const cut = charBoundary(bytes, room);
    this.fileBytes += cut;
    this.fileTail = new TailBuffer(this.tailBytes);
    this.fileTail.push(bytes.subarray(cut).toString("utf8"));
    return cut > 0 ? stream.write(bytes.subarray(0, cut)) : true;
  }

  /** Ends a file that hit its cap with a marker and the output's last bytes; returns the bytes left out. */
  private closeCappedFile(): number {
    const stream = this.spill?.stream;
    const tail = Buffer.from(this.fileTail?.toString() ?? "", "utf8");
    const kept = tail.subarray(tail.length - charBoundaryFromEnd(tail, this.tailBytes));
    const omitted = this.totalBytes - this.fileBytes - kept.length;
    if (stream && !this.error) {
      const marker = Buffer.from(
        `\n... [${omitted} bytes omitted: the saved output is capped at ${this.maxSpillBytes} bytes; its beginning and its last ${kept.length} bytes are kept] ...\n`,
      );
      stream.write(marker);
      stream.write(kept);
      this.fileBytes += marker.length + kept.length;
    }
    return omitted;
  }
}

/** The largest length ≤ `limit` that does not cut a UTF-8 character in two. */
function charBoundary(bytes: Uint8Array, limit: number): number {
  let at = Math.max(0, Math.min(limit, bytes.length));
  while (at > 0 && at < bytes.length && ((bytes[at] ?? 0) & 0xc0) === 0x80) at--;
  return at;
}

/** The largest length ≤ `limit` of a suffix of `bytes` that starts on a character boundary. */
function charBoundaryFromEnd(bytes: Uint8Array, limit: number): number {
  let start = Math.max(0, bytes.length - limit);
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return bytes.length - start;
}
