import { displayWidth, graphemes } from "../display-width.js";
import { type CodePiece, highlightCode, pieceFormat } from "./highlight-code.js";
import type { RenderContext } from "./render-context.js";

const INDENT = "  ";
const TAB = 4;

/** Bidirectional overrides and isolates: in code they would show text in another order than it runs. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * A fenced or indented code block: highlighted by its fence's language (see `highlightCode`), indented two
 * cells, tabs expanded, each line longer than the width continued on the next (code is never re-flowed).
 * Bidirectional controls are shown as `\u202e` so that the code reads as it runs.
 */
export function renderCode(code: string, label: string, width: number, context: RenderContext): string[] {
  const text = expandTabs(code.replace(BIDI, (c) => `\\u${c.charCodeAt(0).toString(16)}`));
  const lines = highlightCode(text, label.split(/\s/)[0] ?? "");
  const room = Math.max(1, width - INDENT.length);
  const out: string[] = [];
  for (const pieces of lines) {
    for (const row of cutLine(pieces, room)) {
      out.push(INDENT + row.map((p) => pieceFormat(context.theme, p.scope)(p.text)).join(""));
    }
  }
  return out;
}

/** A line of pieces cut into rows of at most `room` cells, between grapheme clusters. */
function cutLine(pieces: CodePiece[], room: number): CodePiece[][] {
  const total = pieces.reduce((n, p) => n + displayWidth(p.text), 0);
  if (total <= room) return [pieces];
  const rows: CodePiece[][] = [[]];
  let used = 0;
  for (const piece of pieces) {
    let current: CodePiece | undefined;
    for (const g of graphemes(piece.text)) {
      const w = displayWidth(g);
      if (used + w > room && used > 0) {
        rows.push([]);
        used = 0;
        current = undefined;
      }
      if (!current) {
        current = { text: "", scope: piece.scope };
        rows.at(-1)?.push(current);
      }
      current.text += g;
      used += w;
    }
  }
  return rows;
}

function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  return text
    .split("\n")
    .map((line) => {
      let out = "";
      for (const c of line) out += c === "\t" ? " ".repeat(TAB - (out.length % TAB)) : c;
      return out;
    })
    .join("\n");
}
