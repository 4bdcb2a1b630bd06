import type { Tokens } from "marked";
import { displayWidth } from "../display-width.js";
import { stripSequences } from "./clamp-line.js";
import { inlineRuns } from "./inline-runs.js";
import type { RenderContext } from "./render-context.js";
import type { StyledRun } from "./styled-run.js";
import { wrapRuns } from "./wrap-runs.js";

type Align = "center" | "left" | "right" | null;

/** A column narrower than this (or than its widest cell, if less) is not worth a box: the table goes vertical. */
const MIN_COLUMN = 3;

/**
 * A GFM table drawn with box-drawing characters. Columns get their cells' display width; when the table is
 * wider than `width`, each column gives up room in proportion to its excess and its cells wrap. When even
 * narrow columns would not fit (many columns at a narrow terminal), each row is drawn as `header: value`
 * lines under a rule instead. Linear in the number of cells.
 */
export function renderTable(token: Tokens.Table, width: number, context: RenderContext): string[] {
  const { theme } = context;
  const columns = token.header.length;
  if (columns === 0) return [];
  const headerRuns = token.header.map((cell) => inlineRuns(cell.tokens, context.theme, theme.tableHeader));
  const rowRuns = token.rows.map((row) =>
    Array.from({ length: columns }, (_, c) => inlineRuns(row[c]?.tokens ?? [], context.theme)),
  );
  const natural = headerRuns.map((h, c) =>
    Math.max(1, runsWidth(h), ...rowRuns.map((row) => runsWidth(row[c] ?? []))),
  );
  // │ a │ b │: a bar before each column and one after, a space either side of each cell.
  const frame = columns * 3 + 1;
  const room = width - frame;
  const minimum = natural.map((n) => Math.min(n, MIN_COLUMN));
  if (room < minimum.reduce((a, b) => a + b, 0)) return vertical(headerRuns, rowRuns, width, context);
  const widths = fitColumns(natural, minimum, room);
  const rule = (left: string, mid: string, right: string) =>
    theme.rule(left + widths.map((w) => "─".repeat(w + 2)).join(mid) + right);
  const bar = theme.rule("│");
  const drawRow = (cells: StyledRun[][]): string[] => {
    const wrapped = cells.map((runs, c) => wrapRuns(runs, widths[c] ?? 1, context));
    const height = Math.max(1, ...wrapped.map((w) => w.length));
    const lines: string[] = [];
    for (let i = 0; i < height; i++) {
      const parts = wrapped.map((cell, c) => pad(cell[i] ?? "", widths[c] ?? 1, token.align[c] ?? null));
      lines.push(`${bar} ${parts.join(` ${bar} `)} ${bar}`);
    }
    return lines;
  };
  return [
    rule("┌", "┬", "┐"),
    ...drawRow(headerRuns),
    rule("├", "┼", "┤"),
    ...rowRuns.flatMap(drawRow),
    rule("└", "┴", "┘"),
  ];
}

/**
 * Column widths within `room`: natural when they fit; else the widest columns give up room first, down to a
 * common cap (no column below its minimum), and what the cap leaves over goes back to the widest.
 */
function fitColumns(natural: number[], minimum: number[], room: number): number[] {
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= room) return natural;
  const at = (cap: number) => natural.map((n, c) => Math.max(minimum[c] ?? 0, Math.min(n, cap)));
  const sum = (widths: number[]) => widths.reduce((a, b) => a + b, 0);
  let low = 0;
  let high = Math.max(...natural);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sum(at(mid)) <= room) low = mid;
    else high = mid - 1;
  }
  const widths = at(low);
  let left = room - sum(widths);
  for (let c = 0; c < widths.length && left > 0; c++) {
    if ((widths[c] ?? 0) < (natural[c] ?? 0)) {
      widths[c] = (widths[c] ?? 0) + 1;
      left--;
    }
  }
  return widths;
}

/** Each row as `header: value` lines (values wrapped under the width), rows separated by a rule. */
function vertical(
  headers: StyledRun[][],
  rows: StyledRun[][][],
  width: number,
  context: RenderContext,
): string[] {
  const out: string[] = [];
  rows.forEach((row, r) => {
    if (r > 0) out.push(context.theme.rule("─".repeat(Math.max(1, Math.min(width, 40)))));
    row.forEach((cell, c) => {
      const label = headers[c] ?? [];
      out.push(
        ...wrapRuns([...label, { text: ": ", format: context.theme.tableHeader }, ...cell], width, context),
      );
    });
  });
  if (rows.length === 0)
    out.push(
      ...wrapRuns(
        headers.flatMap((h, i) => (i > 0 ? [{ text: " │ ", format: context.theme.rule }, ...h] : h)),
        width,
        context,
      ),
    );
  return out;
}

function runsWidth(runs: readonly StyledRun[]): number {
  let widest = 0;
  let current = 0;
  for (const run of runs) {
    const parts = run.text.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) {
        widest = Math.max(widest, current);
        current = 0;
      }
      current += displayWidth(part);
    });
  }
  return Math.max(widest, current);
}

/** `line` (styled) padded to `width` cells by its alignment. */
function pad(line: string, width: number, align: Align): string {
  const gap = Math.max(0, width - displayWidth(stripSequences(line)));
  if (align === "right") return " ".repeat(gap) + line;
  if (align === "center")
    return " ".repeat(Math.floor(gap / 2)) + line + " ".repeat(gap - Math.floor(gap / 2));
  return line + " ".repeat(gap);
}
