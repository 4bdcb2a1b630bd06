import type { Token, Tokens } from "marked";
import { displayWidth } from "../display-width.js";
import { inlineRuns } from "./inline-runs.js";
import { renderCode } from "./render-code.js";
import { MAX_DEPTH, type RenderContext } from "./render-context.js";
import { renderTable } from "./render-table.js";
import type { StyledRun } from "./styled-run.js";
import { wrapRuns } from "./wrap-runs.js";

const plain = (text: string) => text;

/** Bullets by nesting depth. */
const BULLETS = ["•", "◦", "▪", "‣"];

/**
 * Block tokens as lines at `width`, a blank line between blocks (none in a tight list item). `space` and link
 * definitions draw nothing.
 */
export function renderBlocks(
  tokens: readonly Token[],
  width: number,
  context: RenderContext,
  depth = 0,
  tight = false,
): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const lines = renderBlock(token, width, context, depth);
    if (lines.length === 0) continue;
    if (out.length > 0 && !tight) out.push("");
    out.push(...lines);
  }
  return out;
}

/** One block token as lines at `width` (at least one cell is assumed). */
export function renderBlock(token: Token, width: number, context: RenderContext, depth = 0): string[] {
  const { theme } = context;
  switch (token.type) {
    case "space":
    case "def":
      return [];
    case "paragraph":
    case "text":
      return paragraph(
        token.tokens ? inlineRuns(token.tokens, theme) : [{ text: String(token.text), format: plain }],
        width,
        context,
      );
    case "heading": {
      const format = theme.heading(Number(token.depth));
      const runs = inlineRuns(token.tokens, theme, format);
      if (!context.color) runs.unshift({ text: `${"#".repeat(Number(token.depth))} `, format });
      return paragraph(runs, width, context);
    }
    case "code":
      return renderCode(String(token.text), String(token.lang ?? ""), width, context);
    case "blockquote": {
      const bar = `${theme.quoteBar("│")} `;
      // Past the deepest nesting drawn, inner quotes share this bar rather than narrowing the text further.
      const inner =
        depth + 1 >= MAX_DEPTH
          ? flatten(token.tokens ?? [], width - 2)
          : renderBlocks(token.tokens ?? [], width - 2, context, depth + 1);
      return inner.map((line) => (line === "" ? theme.quoteBar("│") : bar + line));
    }
    case "list":
      return list(token as Tokens.List, width, context, depth);
    case "table":
      return renderTable(token as Tokens.Table, width, context);
    case "hr":
      return [theme.rule("─".repeat(Math.max(1, width)))];
    case "html":
      return paragraph(
        [{ text: String(token.text ?? token.raw).replace(/\n+$/, ""), format: theme.codeLabel }],
        width,
        context,
      );
    default:
      return paragraph(
        [{ text: String(token.raw ?? "").replace(/\n+$/, ""), format: plain }],
        width,
        context,
      );
  }
}

function paragraph(runs: StyledRun[], width: number, context: RenderContext): string[] {
  const last = runs.at(-1);
  if (last?.text.endsWith("\n")) runs[runs.length - 1] = { ...last, text: last.text.replace(/\n+$/, "") };
  return wrapRuns(runs, width, context);
}

function list(token: Tokens.List, width: number, context: RenderContext, depth: number): string[] {
  const { theme } = context;
  const start = typeof token.start === "number" ? token.start : 1;
  const numbers = token.items.map((_, i) => `${start + i}.`);
  const markerWidth = token.ordered ? Math.max(...numbers.map((n) => n.length)) : 1;
  const out: string[] = [];
  token.items.forEach((item, i) => {
    if (i > 0 && token.loose) out.push("");
    let marker = token.ordered
      ? (numbers[i] ?? "").padStart(markerWidth)
      : (BULLETS[depth % BULLETS.length] ?? "•");
    if (item.task) marker = item.checked ? "☑" : "☐";
    const markerCells = Math.max(markerWidth, displayWidth(marker));
    const indent = " ".repeat(markerCells + 1);
    // Past the deepest nesting drawn, items keep this indentation instead of moving right.
    const innerDepth = depth + 1 >= MAX_DEPTH ? depth : depth + 1;
    const body =
      depth + 1 >= MAX_DEPTH
        ? flatten(item.tokens, width - indent.length)
        : renderBlocks(item.tokens, width - indent.length, context, innerDepth, !item.loose);
    const shownMarker = item.task && item.checked ? theme.listMarker(marker) : theme.listMarker(marker);
    (body.length > 0 ? body : [""]).forEach((line, j) => {
      out.push(
        j === 0
          ? `${shownMarker}${" ".repeat(markerCells - displayWidth(marker) + 1)}${line}`
          : line === ""
            ? ""
            : indent + line,
      );
    });
  });
  return out;
}

/**
 * Nested blocks past the depth limit, as their plain text (such input is hostile or broken anyway), wrapped
 * to `width`. Iterative, so depth costs no stack.
 */
function flatten(tokens: readonly Token[], width: number): string[] {
  const out: string[] = [];
  const stack: Token[] = [...tokens].reverse();
  while (stack.length > 0) {
    const token = stack.pop() as Token;
    if (token.type === "list") stack.push(...[...(token as Tokens.List).items].reverse());
    else if ((token.type === "blockquote" || token.type === "list_item") && token.tokens)
      stack.push(...[...token.tokens].reverse());
    else if (token.type !== "space") {
      const text = "text" in token ? String(token.text) : String(token.raw);
      for (const line of text.split("\n"))
        if (line !== "") out.push(...wrapRuns([{ text: line, format: plain }], width));
    }
  }
  return out;
}
