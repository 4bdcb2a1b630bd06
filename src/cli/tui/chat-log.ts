import { type Component, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";

/** Cursor up N rows, to the start of the line, erase to the end of the screen (a task list redrawn in place). */
const REDRAW_ABOVE = /\u001b\[(\d+)A\r\u001b\[0J|\r\u001b\[2K/g;

/**
 * The conversation on screen: the text the renderers write (the same text print mode writes to a pipe), kept
 * as logical lines and wrapped to the terminal's width when drawn, so that nothing is ever cut or wider than
 * the screen (`/help` included). Two cursor moves of the renderers are understood: "up N rows and erase below"
 * (a task list replaced by its next state) and "erase this line". Every other control sequence was already
 * taken out by the renderers (model and tool text never reaches the screen with its own).
 *
 * Wrapped lines are cached per logical line and width: a frame re-wraps only the lines that changed.
 */
export class ChatLog implements Component {
  /** The logical lines; the last one is open (the next write continues it), "" when the text ended a line. */
  private lines: string[] = [""];
  private wrapped: Array<string[] | undefined> = [];
  private wrappedWidth = 0;
  /** The block being streamed (an answer drawn as Markdown), drawn after the lines until it is written. */
  private tail: Component | undefined;

  constructor(private readonly onChange: () => void = () => {}) {}

  /** Appends renderer output. */
  write(text: string): void {
    if (text === "") return;
    let from = 0;
    for (const match of text.matchAll(REDRAW_ABOVE)) {
      this.append(text.slice(from, match.index));
      if (match[1] !== undefined) this.dropRows(Number(match[1]));
      else this.setOpen("");
      from = match.index + match[0].length;
    }
    this.append(text.slice(from));
    this.onChange();
  }

  /** Whether the text so far ends a line (nothing is open). */
  get atLineStart(): boolean {
    return this.lines.at(-1) === "";
  }

  /** The index the next line written will have: a mark for `replace`. */
  get mark(): number {
    return this.lines.length - 1;
  }

  /** Replaces the lines `[from, to)` (two marks) with `text`'s lines: an output shown whole after all. */
  replace(from: number, to: number, text: string): void {
    if (from < 0 || to > this.lines.length - 1 || from > to) return;
    const fresh = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
    this.lines.splice(from, to - from, ...fresh);
    this.wrapped.splice(from, to - from, ...fresh.map(() => undefined));
    this.onChange();
  }

  /**
   * Draws `component` after the lines, redrawn on each frame, until it is set to undefined (its final lines are
   * then written as text). One cell is left spare at its right, as the renderers leave one; its rows must keep
   * to the width it is given (they are not cut here).
   */
  setTail(component: Component | undefined): void {
    this.tail = component;
    this.onChange();
  }

  /** Empties the log (`/clear`). */
  clear(): void {
    this.lines = [""];
    this.wrapped = [];
    this.onChange();
  }

  /** The text as written between two marks (all of it by default), lines ended by "\n". */
  text(from = 0, to = this.lines.length - 1): string {
    return this.lines
      .slice(from, to)
      .map((line) => `${line}\n`)
      .join("");
  }

  invalidate(): void {
    this.wrapped = [];
  }

  /** Called when the log is first drawn at a new width, before it is drawn (parts may be drawn anew for it). */
  onWidthChange(listener: (width: number) => void): void {
    this.widthListener = listener;
  }
  private widthListener: ((width: number) => void) | undefined;

  render(width: number): string[] {
    if (width !== this.wrappedWidth) {
      const first = this.wrappedWidth === 0;
      this.wrapped = [];
      this.wrappedWidth = width;
      if (!first) this.widthListener?.(width);
    }
    const out: string[] = [];
    const last = this.lines.length - 1;
    for (let i = 0; i < this.lines.length; i++) {
      const line = this.lines[i] ?? "";
      if (i === last && line === "") break;
      let rows = this.wrapped[i];
      if (!rows) {
        rows = wrapLine(line, width);
        this.wrapped[i] = rows;
      }
      for (const row of rows) out.push(row);
    }
    if (this.tail) {
      // A component's rows are never wider than asked for (MarkdownStream clamps each): no cut here, which
      // measured each row of the whole answer again on every frame.
      for (const row of this.tail.render(Math.max(1, width - 1))) out.push(row);
    }
    return out;
  }

  private append(text: string): void {
    if (text === "") return;
    const parts = text.split("\n");
    this.setOpen((this.lines.at(-1) ?? "") + (parts[0] ?? ""));
    for (const part of parts.slice(1)) {
      this.lines.push(part);
      this.wrapped.push(undefined);
    }
  }

  private setOpen(line: string): void {
    const last = this.lines.length - 1;
    this.lines[last] = line;
    this.wrapped[last] = undefined;
  }

  /** The cursor goes up `rows` lines from the open one and everything from there is erased. */
  private dropRows(rows: number): void {
    const keep = Math.max(0, this.lines.length - 1 - rows);
    this.lines.length = keep;
    this.wrapped.length = keep;
    this.lines.push("");
    this.wrapped.push(undefined);
  }
}

/**
 * One logical line as rows of at most `width` cells (tabs as spaces: a tab's width depends on the column). The
 * rows after the first keep the line's indent (its leading spaces, and a result's `⎿ `), so a wrapped result
 * or list item stays under its own text; a help row's continue under its description (`/help` fits any width).
 */
function wrapLine(line: string, width: number): string[] {
  const plain = line.replace(/\t/g, "    ");
  if (plain === "") return [""];
  // A help row (`  /name [args]  what it does`) hangs under its description.
  const lead = /^ *(?:⎿ |\/\S+(?: \S+)*? {2,})?/.exec(plain)?.[0] ?? "";
  const indent = visibleWidth(lead) <= width / 2 ? lead : "";
  if (indent === "") return wrapTextWithAnsi(plain, width).map((row) => truncateToWidth(row, width));
  const pad = " ".repeat(visibleWidth(indent));
  return wrapTextWithAnsi(plain.slice(indent.length), width - pad.length).map((row, i) =>
    truncateToWidth(`${i === 0 ? indent : pad}${row}`, width),
  );
}
