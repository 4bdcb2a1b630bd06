import type { Token } from "marked";
import { TerminalTextFilter } from "../terminal-text.js";
import { clampLine } from "./clamp-line.js";
import { MarkdownBlocks } from "./markdown-blocks.js";
import type { MarkdownComponent, MarkdownOptions } from "./markdown-options.js";
import { createMarkdownTheme } from "./markdown-theme.js";
import { renderBlock } from "./render-blocks.js";
import type { RenderContext } from "./render-context.js";

/** Narrowest width drawn at; a narrower request is drawn at this (pi-tui never asks for less than 1). */
const MIN_WIDTH = 1;

/**
 * Markdown that streams in, drawn as terminal lines: a pi-tui Component (`render(width)`, `invalidate()`) for
 * an assistant message that grows delta by delta. Untrusted text: control sequences in it are removed as it
 * arrives (a sequence may be cut between deltas), so the only escape sequences in the lines are the
 * renderer's own.
 *
 * Incremental: a finished block is lexed once and drawn once per width, then its lines are reused; each
 * change lexes and draws only the open last block. So `render` after each delta costs what the open block
 * costs, not what the whole answer does. After `end()`, the lines equal `renderMarkdown` of the whole text,
 * however it was split into deltas, with one exception kept for that cost: a reference link used before its
 * definition (`see [l]` … `[l]: https://…` further down) stays text in a block finished before the definition came.
 */
export class MarkdownStream implements MarkdownComponent {
  readonly #filter = new TerminalTextFilter();
  readonly #blocks = new MarkdownBlocks();
  readonly #context: RenderContext;
  /** The finished blocks' lines at `#width`, and how many blocks they cover. */
  #lines: string[] = [];
  #drawn = 0;
  #width = -1;
  /** The open blocks' lines at `#width`, until the next change. */
  #openLines: string[] | undefined;

  constructor(options: MarkdownOptions = {}) {
    const color = options.color ?? true;
    const theme = { ...createMarkdownTheme(color), ...options.theme };
    this.#context = { theme, hyperlinks: options.hyperlinks ?? false, color };
  }

  /** Adds a piece of the text (any split: mid-word, mid-sequence, mid-fence). Must not be called after `end`. */
  append(delta: string): void {
    const safe = this.#filter.push(delta);
    if (safe === "") return;
    this.#blocks.append(safe);
    this.#openLines = undefined;
  }

  /** The text is complete: the open blocks are finished (a fence left open runs to the end). */
  end(): void {
    if (this.#blocks.ended) return;
    this.#blocks.append(this.#filter.flush());
    this.#blocks.end();
    this.#openLines = undefined;
  }

  /** The lines at `width` cells: none wider, each closing the styles it opens. */
  render(width: number): string[] {
    const w = Math.max(MIN_WIDTH, Math.floor(width));
    if (w !== this.#width) {
      this.#width = w;
      this.#lines = [];
      this.#drawn = 0;
      this.#openLines = undefined;
    }
    const finished = this.#blocks.finished;
    if (this.#drawn < finished.length) {
      this.#openLines = undefined;
      for (; this.#drawn < finished.length; this.#drawn++)
        addBlock(this.#lines, finished[this.#drawn], w, this.#context);
    }
    if (this.#openLines === undefined) {
      const open: string[] = [];
      const separate = this.#lines.length > 0;
      for (const token of this.#blocks.open) addBlock(open, token, w, this.#context, separate);
      this.#openLines = open;
    }
    return this.#openLines.length === 0 ? this.#lines.slice() : this.#lines.concat(this.#openLines);
  }

  /** Drops every cached line (a theme or terminal change); the next `render` draws all blocks again. */
  invalidate(): void {
    this.#width = -1;
  }
}

/**
 * Appends one block's lines to `lines`, after a blank line when something came before (`separate` says so for a
 * list that is empty but follows others).
 */
export function addBlock(
  lines: string[],
  token: Token | undefined,
  width: number,
  context: RenderContext,
  separate = false,
): void {
  if (!token) return;
  const drawn = renderBlock(token, width, context);
  if (drawn.length === 0) return;
  if (lines.length > 0 || separate) lines.push("");
  for (const line of drawn) lines.push(clampLine(line, width));
}
