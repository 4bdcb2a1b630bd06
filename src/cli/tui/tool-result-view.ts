import { type Component, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { ToolResultBlock, ToolUseBlock } from "../../messages/index.js";
import { refusalNote } from "../render/refusal-note.js";
import type { Style } from "../render/style.js";
import { readSummary, resultText } from "../render/text-renderer.js";

export interface ToolResultViewOptions {
  style: Style;
  /** Lines of output shown while collapsed; default 4 (a diff: 16). */
  collapsedLines?: number;
  /** The key that expands, as the hint names it; default "ctrl+o". */
  expandKey?: string;
}

/**
 * A tool call's result under its call line, as a pi-tui component: `⎿ Read 120 lines` for a Read (never the
 * file), `⎿ refused by you` for a call the user said no to (never the text written for the model), a diff
 * coloured, other output dimmed (an error red). Long output is collapsed to a few lines with
 * `… +N lines (ctrl+o to expand)`; a command's output shows its last lines, where a build or a test run says how
 * it went. The app binds the key and calls `toggle()` on the last view. Every line fits the width; the text is
 * the result's with control sequences removed.
 */
export interface ToolResultView extends Component {
  readonly expanded: boolean;
  /** True when collapsing hides lines, so expanding would show more. */
  readonly collapsible: boolean;
  setExpanded(expanded: boolean): void;
  toggle(): void;
  render(width: number): string[];
}

const DIFF_LINE = /^@@ /;

export function createToolResultView(
  block: ToolUseBlock,
  result: ToolResultBlock,
  options: ToolResultViewOptions,
): ToolResultView {
  const { style } = options;
  const key = options.expandKey ?? "ctrl+o";
  const refused = refusalNote(result);
  const isRead = block.name === "Read" && !result.is_error;
  let lines = refused || isRead ? [] : resultText(result).replace(/\t/g, "    ").split("\n");
  const tail = block.name === "Bash" && !result.is_error;
  if (tail) {
    // A clean exit says nothing the user needs; trailing blank lines neither.
    lines = lines.filter((line) => line !== "[Exit code: 0]");
    while (lines.length > 1 && lines.at(-1) === "") lines.pop();
  }
  if (lines.length === 1 && lines[0] === "") lines = [];
  const isDiff = lines.some((line) => DIFF_LINE.test(line));
  const limit = Math.max(1, options.collapsedLines ?? (isDiff ? 16 : 4));
  const collapsible = lines.length > limit;
  let expanded = false;

  const paint = (line: string) => {
    if (result.is_error) return style.red(line);
    if (isDiff && line.startsWith("+") && !line.startsWith("+++")) return style.green(line);
    if (isDiff && line.startsWith("-") && !line.startsWith("---")) return style.red(line);
    return style.dim(line);
  };
  /** Lines with the `⎿` gutter; a wide line wraps when expanded and is cut when collapsed. */
  const gutter = (texts: string[], width: number, wrap: boolean) => {
    const inner = Math.max(1, width - 4);
    const rows = texts.flatMap((text) =>
      wrap ? wrapTextWithAnsi(text, inner) : [truncateToWidth(text, inner)],
    );
    return rows.map((row, i) => truncateToWidth(`${i === 0 ? "  ⎿ " : "    "}${row}`, width));
  };

  return {
    get expanded() {
      return expanded;
    },
    collapsible,
    setExpanded(value) {
      expanded = value;
    },
    toggle() {
      expanded = !expanded;
    },
    invalidate() {},
    render(width) {
      if (refused) return gutter([style.yellow(refused)], width, false);
      if (isRead) return gutter([readSummary(result, style).replace(/^ {2}⎿ |\n$/g, "")], width, false);
      if (lines.length === 0) return gutter([style.dim("(no output)")], width, false);
      if (expanded || !collapsible) return gutter(lines.map(paint), width, true);
      const hidden = lines.length - limit;
      const more = style.dim(`… +${hidden} ${hidden === 1 ? "line" : "lines"} (${key} to expand)`);
      const shown = tail ? lines.slice(hidden) : lines.slice(0, limit);
      return gutter(tail ? [more, ...shown.map(paint)] : [...shown.map(paint), more], width, false);
    },
  };
}
