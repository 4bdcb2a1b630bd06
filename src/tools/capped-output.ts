import { createWriteStream, type WriteStream } from "node:fs";

/** What a `CappedOutput` kept. */
export interface CappedOutputResult {
  /** The whole output when it fit, else its head and tail around a marker line. */
  text: string;
  truncated: boolean;
  totalChars: number;
  /** Where the whole output was saved; set only when it did not fit and the file could be written. */
  fullOutputPath?: string;
  /** Why the whole output could not be saved, if it could not. */
  saveError?: string;
}

/**
 * Collects a stream of output in bounded memory: all of it while it fits in `maxChars`; past that, the
 * first half and a rolling last half, while the whole stream is written, in order, to the file that
 * `spillPath()` names (called once, at the first overflow). The model can then Read the middle if it needs
 * it (progressive disclosure) without one call flooding its context.
 */
export class CappedOutput {
  private buffer = "";
  private head = "";
  private tail = "";
  private total = 0;
  private spilled = false;
  private file: WriteStream | undefined;
  private path: string | undefined;
  private error: Error | undefined;

  constructor(
    private readonly maxChars: number,
    private readonly spillPath: () => string,
  ) {}

  push(text: string): void {
    if (text.length === 0) return;
    this.total += text.length;
    if (!this.spilled) {
      this.buffer += text;
      if (this.buffer.length <= this.maxChars) return;
      text = this.buffer;
      this.buffer = "";
      this.startSpill();
    }
    const half = Math.floor(this.maxChars / 2);
    if (this.head.length < half) this.head += text.slice(0, half - this.head.length);
    this.tail = (this.tail + text).slice(-half);
    this.file?.write(text);
  }

  async finish(): Promise<CappedOutputResult> {
    if (!this.spilled) return { text: this.buffer, truncated: false, totalChars: this.total };
    const file = this.file;
    if (file && !this.error) {
      await new Promise<void>((resolve) => {
        file.once("error", () => resolve());
        file.end(() => resolve());
      });
    }
    // Cut at line breaks near the edges, so the model does not see half lines.
    let head = this.head;
    const headBreak = head.lastIndexOf("\n");
    if (headBreak > head.length * 0.8) head = head.slice(0, headBreak + 1);
    let tail = this.tail;
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
    else if (this.path) result.fullOutputPath = this.path;
    return result;
  }

  private startSpill(): void {
    this.spilled = true;
    try {
      this.path = this.spillPath();
      this.file = createWriteStream(this.path, { mode: 0o600, flags: "wx" });
      this.file.on("error", (error) => {
        this.error = error;
      });
    } catch (error) {
      this.error = error as Error;
    }
  }
}
