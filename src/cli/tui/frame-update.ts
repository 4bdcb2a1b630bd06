import { rewriteLine } from "./line-rewrite.js";

/** The frame on the terminal, as pi-tui's differential renderer keeps it (rows counted from the frame's top). */
export interface FrameOnScreen {
  /** The rows drawn, each whole (its styles reset at its end). */
  lines: readonly string[];
  /** The first row the terminal still shows (those above it went to the scrollback). */
  viewportTop: number;
  /** The row the terminal's cursor is on. */
  cursorRow: number;
  /** The cursor's column, when the last frame placed it. */
  cursorColumn?: number | undefined;
  /** The terminal's height in rows. */
  height: number;
}

/** What one update writes, and where it leaves the cursor and the viewport. */
export interface FrameUpdate {
  bytes: string;
  cursorRow: number;
  viewportTop: number;
}

/**
 * The bytes that turn `before` into `next` on the terminal, or undefined when a row that changed has gone to
 * the scrollback (only a full redraw can change it then).
 *
 * Fewer bytes than drawing every row from the first change on (pi-tui's way): rows that did not change are not
 * written, a changed row is written from its first changed cell (`rewriteLine`), and the rows under the change
 * that only moved — the editor, the status lines under a streaming answer — are moved by the terminal: rows
 * inserted above them (IL) or deleted (DL), after the screen has scrolled to make room. The cursor then goes to
 * `cursor` (the editor's), if any.
 */
export function updateFrame(
  before: FrameOnScreen,
  next: readonly string[],
  cursor: { row: number; col: number } | null,
): FrameUpdate | undefined {
  const old = before.lines;
  const first = firstDifference(old, next);
  const writer = new RowWriter(before);
  if (first !== -1) {
    if (first < before.viewportTop) return undefined;
    const shift = cheapestShift(old, next, first, writer);
    if (shift) shiftRows(writer, old, next, first, shift);
    else rewriteRows(writer, old, next, first);
  }
  const stays = writer.bytes === "" && cursor?.row === before.cursorRow && cursor.col === before.cursorColumn;
  if (cursor && next.length > 0 && !stays) {
    writer.moveTo(Math.max(0, Math.min(cursor.row, next.length - 1)));
    writer.bytes += `\x1b[${cursor.col + 1}G`;
  }
  return { bytes: writer.bytes, cursorRow: writer.row, viewportTop: writer.top };
}

/** The first row where the frames differ (one ending sooner differs there), or -1. */
function firstDifference(old: readonly string[], next: readonly string[]): number {
  const rows = Math.max(old.length, next.length);
  for (let row = 0; row < rows; row++) if (old[row] !== next[row]) return row;
  return -1;
}

/** Rows inserted (`count` > 0) or deleted at `at` (a row of the new frame) to move the rows under it. */
interface Shift {
  at: number;
  count: number;
}

/**
 * When the frame grew or shrank, where inserting or deleting rows costs fewest bytes, counting every row then
 * written; undefined when writing the rows where they are costs less (or no row may move: those that would must
 * stay on the screen, and a frame of the same height moves none).
 */
function cheapestShift(
  old: readonly string[],
  next: readonly string[],
  first: number,
  writer: RowWriter,
): Shift | undefined {
  const count = next.length - old.length;
  if (count === 0) return undefined;
  const cost = (was: string | undefined, now: string | undefined) => rewriteLine(was ?? "", now ?? "").length;
  // Rows above the move keep their place; rows under it moved by `count`; rows inserted are blank.
  const inPlace = [0];
  for (let row = first; row < next.length; row++)
    inPlace.push((inPlace.at(-1) ?? 0) + cost(old[row], next[row]));
  const moved = new Array<number>(next.length - first + 1).fill(0);
  for (let row = next.length - 1; row >= first; row--) {
    const from = row - count;
    const below = moved[row + 1 - first] ?? 0;
    moved[row - first] = below + (from >= first ? cost(old[from], next[row]) : Number.POSITIVE_INFINITY);
  }
  const plain =
    (inPlace[Math.min(old.length, next.length) - first] ?? 0) +
    next.slice(old.length).reduce((sum, line) => sum + line.length + 6, 0) +
    Math.max(0, -count) * 6;
  let best: Shift | undefined;
  let bestCost = plain;
  const lowest =
    count > 0 ? Math.max(first, writer.top, next.length - writer.height) : Math.max(first, writer.top);
  const highest = count > 0 ? old.length : next.length;
  for (let at = lowest; at <= highest; at++) {
    const inserted = count > 0 ? next.slice(at, at + count).reduce((sum, line) => sum + line.length, 0) : 0;
    const under = count > 0 ? at + count : at;
    const total = (inPlace[at - first] ?? 0) + inserted + (moved[under - first] ?? 0) + 8;
    if (total < bestCost) {
      bestCost = total;
      best = { at, count };
    }
  }
  return best;
}

/** Writes the frame with `shift`: rows above it in place, rows inserted or deleted, the rows under it moved. */
function shiftRows(
  writer: RowWriter,
  old: readonly string[],
  next: readonly string[],
  first: number,
  shift: Shift,
): void {
  const { at, count } = shift;
  for (let row = first; row < at; row++) writer.line(row, old[row] ?? "", next[row] ?? "");
  if (count > 0) {
    // Room first: the screen scrolls, if it must, before the rows under `at` are pushed down.
    writer.moveTo(next.length - 1);
    writer.moveTo(at);
    writer.bytes += `\x1b[${count}L`;
    for (let row = at; row < at + count; row++) writer.line(row, "", next[row] ?? "");
  } else {
    writer.moveTo(at);
    writer.bytes += `\x1b[${-count}M`;
  }
  for (let row = Math.max(at, at + count); row < next.length; row++) {
    writer.line(row, old[row - count] ?? "", next[row] ?? "");
  }
}

/** Every row from `first` on written where it changed; rows past the new end erased. */
function rewriteRows(
  writer: RowWriter,
  old: readonly string[],
  next: readonly string[],
  first: number,
): void {
  for (let row = first; row < next.length; row++) {
    if (row < old.length) writer.line(row, old[row] ?? "", next[row] ?? "");
    else {
      // A row under the old frame: blank as pi-tui leaves it, erased all the same.
      writer.moveTo(row);
      writer.bytes += `\x1b[2K${rewriteLine("", next[row] ?? "")}`;
    }
  }
  for (let row = next.length; row < old.length; row++) {
    writer.moveTo(row);
    writer.bytes += "\r\x1b[2K";
  }
}

/**
 * Moves the cursor by rows, as pi-tui does: up only to rows still on the screen, down by CUD only over rows
 * already drawn, and past them by new lines (the screen scrolls when they reach its bottom).
 */
class RowWriter {
  bytes = "";
  row: number;
  top: number;
  readonly height: number;
  /** The last row known to be on the terminal (drawn, or made by a new line). */
  private bottom: number;

  constructor(before: FrameOnScreen) {
    this.row = before.cursorRow;
    this.top = before.viewportTop;
    this.height = before.height;
    this.bottom = Math.max(before.lines.length - 1, before.cursorRow);
  }

  line(row: number, old: string, next: string): void {
    const bytes = rewriteLine(old, next);
    if (bytes === "") return;
    this.moveTo(row);
    this.bytes += bytes;
  }

  moveTo(row: number): void {
    if (row < this.row) this.bytes += `\x1b[${this.row - row}A`;
    else if (row > this.row) {
      const down = Math.min(row, this.bottom) - this.row;
      if (down > 0) this.bytes += `\x1b[${down}B`;
      for (let made = Math.max(this.row, this.bottom); made < row; made++) this.bytes += "\r\n";
      this.bottom = Math.max(this.bottom, row);
      this.top = Math.max(this.top, row - this.height + 1);
    }
    this.row = row;
  }
}
