import { StdinBuffer, type Terminal } from "@mariozechner/pi-tui";

/** The keyboard side of a terminal: a readable stream, with raw mode when it is a real TTY. */
export type TerminalInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

/** The screen side: a writable stream, with its size when it is a real TTY (80×24 otherwise). */
export type TerminalOutput = NodeJS.WritableStream & {
  columns?: number;
  rows?: number;
  on?: (event: "resize", listener: () => void) => unknown;
  off?: (event: "resize", listener: () => void) => unknown;
};

/**
 * pi-tui's `Terminal` over the streams mitsu was given (`io.stdin` / `io.stdout`), not `process.stdin`: the same
 * screen runs at a real terminal and in tests that drive `main` with a fake one. Input is split into single key
 * sequences (and pastes) by pi-tui's `StdinBuffer`. Bracketed paste is switched on, so a pasted text arrives as
 * one paste, never as lines that each send a prompt; xterm's modifyOtherKeys (mode 2) is asked for, so that
 * Shift-Enter is told apart from Enter where the terminal can.
 */
export class StreamTerminal implements Terminal {
  private buffer: StdinBuffer | undefined;
  private onData: ((data: string | Buffer) => void) | undefined;
  private onResize: (() => void) | undefined;
  private wasRaw = false;
  /** Whether the cursor was last shown or hidden (undefined: not known): each frame asks, once is enough. */
  private cursorShown: boolean | undefined;

  constructor(
    private readonly input: TerminalInput,
    private readonly output: TerminalOutput,
  ) {}

  get kittyProtocolActive(): boolean {
    return false;
  }

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.cursorShown = undefined;
    this.wasRaw = this.input.isRaw === true;
    this.input.setRawMode?.(true);
    this.input.setEncoding?.("utf8");
    const buffer = new StdinBuffer({ timeout: 10 });
    buffer.on("data", onInput);
    // The editor expects a paste wrapped in its markers again.
    buffer.on("paste", (content) => onInput(`\x1b[200~${content}\x1b[201~`));
    this.buffer = buffer;
    this.onData = (data) => buffer.process(data);
    this.input.on("data", this.onData);
    this.input.resume();
    this.onResize = onResize;
    this.output.on?.("resize", onResize);
    this.write("\x1b[?2004h\x1b[>4;2m");
  }

  stop(): void {
    this.cursorShown = undefined;
    this.write("\x1b[>4;0m\x1b[?2004l");
    if (this.onData) this.input.removeListener("data", this.onData);
    this.onData = undefined;
    this.buffer?.destroy();
    this.buffer = undefined;
    if (this.onResize) this.output.off?.("resize", this.onResize);
    this.onResize = undefined;
    this.input.setRawMode?.(this.wasRaw);
    this.input.pause();
  }

  async drainInput(): Promise<void> {}

  write(data: string): void {
    this.output.write(data);
  }

  get columns(): number {
    const value = this.output.columns;
    return value !== undefined && value > 0 ? value : 80;
  }

  get rows(): number {
    const value = this.output.rows;
    return value !== undefined && value > 0 ? value : 24;
  }

  moveBy(lines: number): void {
    if (lines > 0) this.write(`\x1b[${lines}B`);
    else if (lines < 0) this.write(`\x1b[${-lines}A`);
  }

  hideCursor(): void {
    if (this.cursorShown === false) return;
    this.cursorShown = false;
    this.write("\x1b[?25l");
  }

  showCursor(): void {
    if (this.cursorShown === true) return;
    this.cursorShown = true;
    this.write("\x1b[?25h");
  }

  clearLine(): void {
    this.write("\x1b[K");
  }

  clearFromCursor(): void {
    this.write("\x1b[J");
  }

  clearScreen(): void {
    this.write("\x1b[2J\x1b[H");
  }

  setTitle(title: string): void {
    // The title is mitsu's own text, but it goes out in an OSC sequence: no control character may end it early.
    this.write(`\x1b]0;${title.replace(/[\x00-\x1f\x7f]/g, "")}\x07`);
  }

  setProgress(): void {}
}
