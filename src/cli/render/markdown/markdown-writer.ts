import type { Token } from "marked";
import { TerminalTextFilter } from "../terminal-text.js";
import { clampLine } from "./clamp-line.js";
import { MarkdownBlocks } from "./markdown-blocks.js";
import type { MarkdownOptions } from "./markdown-options.js";
import { createMarkdownTheme } from "./markdown-theme.js";
import { renderBlock } from "./render-blocks.js";
import type { RenderContext } from "./render-context.js";

/** Where a `MarkdownWriter` writes, and at what width. */
export interface MarkdownWriterOptions extends MarkdownOptions {
  /** Receives whole lines, each ending with `\n`. */
  write: (text: string) => void;
  /** The terminal's width in cells; a function is asked before each block (a resized window). Default 80. */
  width?: number | (() => number);
}

/**
 * Markdown streamed to a terminal that cannot redraw (a scrolling readline screen, a log): a line is written
 * once its block is finished (see `MarkdownBlocks`), and the rows of an open fence or paragraph as soon as
 * they are complete (see `#streamOpen`). `end()` writes the rest: call it also when the text stops early. Control sequences in the text never reach `write` (see `MarkdownStream`).
 */
export class MarkdownWriter {
  readonly #filter = new TerminalTextFilter();
  readonly #blocks = new MarkdownBlocks();
  readonly #context: RenderContext;
  readonly #options: MarkdownWriterOptions;
  /** Finished blocks written so far. */
  #written = 0;
  /** Whether anything was written (a blank line goes before each further block). */
  #any = false;
  /** Rows of the first open block written so far (a fence's or a paragraph's; see `#streamOpen`). */
  #openRows = 0;

  constructor(options: MarkdownWriterOptions) {
    this.#options = options;
    const color = options.color ?? true;
    this.#context = {
      theme: { ...createMarkdownTheme(color), ...options.theme },
      hyperlinks: options.hyperlinks ?? false,
      color,
    };
  }

  /** Adds a piece of the text; writes the lines it finished. */
  push(delta: string): void {
    const safe = this.#filter.push(delta);
    if (safe === "") return;
    this.#blocks.append(safe);
    this.#flushFinished();
    this.#streamOpen();
  }

  /** The text is complete: writes what is left. */
  end(): void {
    if (this.#blocks.ended) return;
    this.#blocks.append(this.#filter.flush());
    this.#blocks.end();
    this.#flushFinished();
  }

  #width(): number {
    const w = typeof this.#options.width === "function" ? this.#options.width() : this.#options.width;
    return w !== undefined && w > 0 ? Math.floor(w) : 80;
  }

  #flushFinished(): void {
    const finished = this.#blocks.finished;
    for (; this.#written < finished.length; this.#written++) {
      const token = finished[this.#written] as Token;
      const lines = this.#lines(token);
      if (lines.length === 0) continue;
      const skip = this.#openRows;
      this.#openRows = 0;
      // A block whose first rows were written while it was open: only its remaining rows.
      if (skip > 0) this.#emit(lines.slice(skip), false);
      else this.#emit(lines, this.#any);
    }
  }

  /**
   * Rows of the first open block that later text will not change, written once: a fenced code block's
   * complete lines; a paragraph's rows but its last (a long paragraph shows as it streams; emphasis closed
   * later restyles only the rows still to come).
   */
  #streamOpen(): void {
    const open = this.#blocks.open[0];
    let lines: string[];
    if (open?.type === "code" && open.codeBlockStyle !== "indented") {
      const text = String(open.text);
      const complete = text.lastIndexOf("\n");
      if (complete < 0) return;
      lines = this.#lines({ ...open, text: text.slice(0, complete) } as Token);
    } else if (open?.type === "paragraph" && this.#blocks.open.length === 1) {
      lines = this.#lines(open).slice(0, -1);
    } else return;
    if (lines.length <= this.#openRows) return;
    this.#emit(lines.slice(this.#openRows), this.#openRows === 0 && this.#any);
    this.#openRows = lines.length;
  }

  #lines(token: Token): string[] {
    const width = this.#width();
    return renderBlock(token, width, this.#context).map((line) => clampLine(line, width));
  }

  #emit(lines: string[], blankFirst: boolean): void {
    if (lines.length === 0) return;
    this.#options.write(`${blankFirst ? "\n" : ""}${lines.join("\n")}\n`);
    this.#any = true;
  }
}
