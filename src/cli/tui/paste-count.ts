import type { Editor } from "@mariozechner/pi-tui";

interface EditorInternals {
  state: { lines: string[]; cursorLine: number; cursorCol: number };
  pasteCounter: number;
  handlePaste(text: string): void;
  setCursorCol(col: number): void;
}

/**
 * pi-tui (0.73) counts a large paste's lines by splitting at "\n", so text that ends with a newline (as nearly
 * every copied block does) reads one line more than it has: `[paste #1 +21 lines]` for 20. The marker's count is
 * put right; the pasted text itself is kept as it was.
 */
export function countPastedLinesRight(editor: Editor): void {
  const internals = editor as unknown as EditorInternals;
  const paste = internals.handlePaste.bind(editor);
  internals.handlePaste = (text: string) => {
    const before = internals.pasteCounter;
    paste(text);
    if (internals.pasteCounter === before || !/\r?\n$/.test(text.replace(/\x1b\[201~$/, ""))) return;
    const marker = `[paste #${internals.pasteCounter} +`;
    const { lines, cursorLine } = internals.state;
    const line = lines[cursorLine] ?? "";
    const at = line.lastIndexOf(marker);
    if (at === -1) return;
    const fixed = line.slice(at).replace(/^(\[paste #\d+ \+)(\d+)( lines\])/, (_m, head, n, tail) => {
      return `${head}${Number(n) - 1}${tail}`;
    });
    const next = line.slice(0, at) + fixed;
    const shift = next.length - line.length;
    lines[cursorLine] = next;
    internals.setCursorCol(internals.state.cursorCol + shift);
  };
}
