import { type Terminal, type TUI, visibleWidth } from "@mariozechner/pi-tui";
import { updateFrame } from "./frame-update.js";
import { ROW_END } from "./line-rewrite.js";

/** The parts of pi-tui's `TUI` its renderer keeps between frames (private there; the names are its own). */
interface RendererState {
  terminal: Terminal;
  stopped: boolean;
  previousLines: string[];
  previousWidth: number;
  previousHeight: number;
  previousViewportTop: number;
  hardwareCursorRow: number;
  cursorRow: number;
  maxLinesRendered: number;
  clearOnShrink: boolean;
  showHardwareCursor: boolean;
  overlayStack: unknown[];
  previousKittyImageIds: Set<number>;
  render(width: number): string[];
  extractCursorPosition(lines: string[], height: number): { row: number; col: number } | null;
  applyLineResets(lines: string[]): string[];
  doRender(): void;
}

/**
 * Makes `tui` draw each frame in fewer bytes (`updateFrame`): unchanged rows and cells are not sent again, rows
 * that only moved are moved by the terminal, the cursor is placed in the same write. pi-tui's own renderer still
 * draws what this does not handle: the first frame, a new size, overlays, images, a change above the viewport.
 */
export function renderLean(tui: TUI): void {
  const state = tui as unknown as RendererState;
  // pi-tui's private renderer state, as 0.73 has it: another version without it keeps pi-tui's own drawing.
  if (!hasRendererState(state)) return;
  const drawWhole = state.doRender.bind(tui);
  let column: number | undefined;
  /** The rows this drew last (checked for images then): while they are pi-tui's previous frame, not checked again. */
  let drawnHere: string[] | undefined;
  state.doRender = () => {
    if (state.stopped) return;
    const width = state.terminal.columns;
    const height = state.terminal.rows;
    const drawn = state.render(width);
    const fallBack = () => {
      // pi-tui draws the same components' lines (drawn once), its way.
      state.render = () => [...drawn];
      try {
        drawWhole();
      } finally {
        delete (state as Partial<RendererState>).render;
      }
      // Where pi-tui put the cursor: the next frame need not put it there again.
      column = state.extractCursorPosition([...drawn], height)?.col;
    };
    const previous = state.previousLines;
    const sameSize = state.previousWidth === width && state.previousHeight === height;
    const shrinkClears = state.clearOnShrink && drawn.length < state.maxLinesRendered;
    if (previous.length === 0 || !sameSize || state.overlayStack.length > 0 || shrinkClears)
      return fallBack();
    const marked = [...drawn];
    const cursor = state.extractCursorPosition(marked, height);
    const lines = state.applyLineResets(marked).map(withoutBlankEnd);
    // The previous frame has no image (this drew it, or it was just checked): a row as it was has none either.
    if (previous !== drawnHere && previous.some(hasImage)) return fallBack();
    const unusual = (line: string, row: number) =>
      line !== previous[row] && (hasImage(line) || visibleWidth(line) > width);
    if (lines.some(unusual)) return fallBack();
    const update = updateFrame(
      {
        lines: previous,
        viewportTop: state.previousViewportTop,
        cursorRow: state.hardwareCursorRow,
        cursorColumn: column,
        height,
      },
      lines,
      cursor,
    );
    if (!update) return fallBack();
    if (update.bytes !== "") state.terminal.write(`\x1b[?2026h${update.bytes}\x1b[?2026l`);
    if (cursor && state.showHardwareCursor) state.terminal.showCursor();
    else state.terminal.hideCursor();
    column = cursor?.col;
    state.previousLines = lines;
    drawnHere = lines;
    state.cursorRow = Math.max(0, lines.length - 1);
    state.hardwareCursorRow = update.cursorRow;
    state.maxLinesRendered = Math.max(state.maxLinesRendered, lines.length);
    state.previousViewportTop = update.viewportTop;
    state.previousKittyImageIds = new Set();
  };
}

/** Whether `state` has the members of pi-tui's renderer that `renderLean` reads and sets. */
function hasRendererState(state: RendererState): boolean {
  const methods = ["render", "extractCursorPosition", "applyLineResets", "doRender"] as const;
  return (
    methods.every((name) => typeof state[name] === "function") &&
    Array.isArray(state.previousLines) &&
    Array.isArray(state.overlayStack) &&
    typeof state.previousViewportTop === "number" &&
    typeof state.hardwareCursorRow === "number" &&
    typeof state.maxLinesRendered === "number" &&
    state.previousKittyImageIds instanceof Set
  );
}

/** A row that ends in a space, as pi-tui ends it. */
const BLANK_END = ` ${ROW_END}`;

/**
 * A row without the unstyled spaces that end it (the editor pads its row to the terminal's width): they show as
 * the blank cells an erased row has, and need not be sent.
 */
function withoutBlankEnd(line: string): string {
  if (!line.endsWith(BLANK_END)) return line;
  const text = line.slice(0, -ROW_END.length).replace(/ +$/, "");
  // Unstyled: after a reset, or in a row that sets no style at all; and in no link (a reset does not end one).
  const link = text.lastIndexOf("\x1b]8;");
  const linkOpen = link !== -1 && !/^\x1b\]8;[^;]*;(?:\x07|\x1b\\)/.test(text.slice(link));
  return (text.endsWith("\x1b[0m") || !text.includes("\x1b")) && !linkOpen ? text + ROW_END : line;
}

/** A row that carries an image (kitty or iTerm2): pi-tui places and deletes those itself. */
function hasImage(line: string): boolean {
  return line.includes("\x1b_G") || line.includes("\x1b]1337;File=");
}
