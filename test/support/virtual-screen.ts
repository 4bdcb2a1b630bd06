import { Writable } from "node:stream";
import xterm from "@xterm/headless";

/**
 * A terminal screen for tests that run `main` in-process: what mitsu writes goes through a headless xterm, so
 * `text` is what a user would see (scrollback and screen, ANSI interpreted), not the bytes of every redraw.
 */
export class VirtualScreen extends Writable {
  isTTY = true;
  readonly columns: number;
  readonly rows: number;
  private readonly term: InstanceType<typeof xterm.Terminal>;
  private waiters: Array<() => void> = [];

  constructor(columns = 200, rows = 50) {
    super();
    this.columns = columns;
    this.rows = rows;
    this.term = new xterm.Terminal({ cols: columns, rows, scrollback: 10_000, allowProposedApi: true });
  }

  /** Every byte written, as written (to check what never reaches the terminal). */
  raw = "";

  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    const text = chunk.toString("utf8");
    this.raw += text;
    this.term.write(text, () => {
      for (const wake of this.waiters.splice(0)) wake();
      done();
    });
  }

  /** Resolves once everything written so far is on the terminal (read `text` after it). */
  flush(): Promise<void> {
    return new Promise((resolve) => this.write("", () => resolve()));
  }

  /** The rows of the terminal, trailing spaces and empty rows at the end cut. */
  get text(): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return lines.join("\n");
  }

  /** Resolves once `needle` is on the terminal `times` times in total. */
  async waitFor(needle: string, times = 1, timeoutMs = 8000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(needle) < times) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`waited for ${JSON.stringify(needle)} ×${times}; screen:\n${this.text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  count(needle: string): number {
    return this.text.split(needle).length - 1;
  }
}
