import { displayWidth, graphemes } from "../display-width.js";
import { hyperlink, linkTarget } from "./hyperlinks.js";
import type { Format } from "./markdown-theme.js";
import type { StyledRun } from "./styled-run.js";

/** A piece of one output line: text of one run. */
interface Piece {
  text: string;
  run: number;
}

/** A word (no break inside unless it is wider than the line) made of pieces of one or more runs. */
interface Word {
  pieces: Piece[];
  width: number;
  /** Whether a space came before it (shown unless the word starts a line), and the run it is in. */
  spaced: boolean;
  spaceRun: number;
  /** A line break before it (`\n` in the text). */
  broken: boolean;
}

/** Characters between which a line may break without a space: CJK ideographs, kana, Hangul, full-width forms. */
const WIDE = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u3000-\\u303f\\uff00-\\uffef";
const ATOM = new RegExp(`\\n|[ \\t]+|[${WIDE}]|[^\\s${WIDE}]+`, "gu");
const WIDE_ONE = new RegExp(`^[${WIDE}]$`, "u");

/** Options for turning runs into lines. */
export interface WrapOptions {
  /** Runs with an `href` become OSC 8 hyperlinks. */
  hyperlinks?: boolean;
}

/**
 * `runs` wrapped to `width` display cells (CJK and emoji count two), breaking at spaces and between CJK
 * characters, a word wider than the line broken between grapheme clusters; `\n` in a run breaks the line.
 * Styles are applied to each line's pieces after wrapping, so escape sequences are never split. Spaces at the
 * end of a line go. Linear in the text's length.
 */
export function wrapRuns(runs: readonly StyledRun[], width: number, options: WrapOptions = {}): string[] {
  const max = Math.max(1, width);
  const lines: Piece[][] = [];
  let line: Piece[] = [];
  let used = 0;
  const endLine = () => {
    lines.push(line);
    line = [];
    used = 0;
  };
  const add = (text: string, run: number, w: number) => {
    const last = line.at(-1);
    if (last && last.run === run) last.text += text;
    else line.push({ text, run });
    used += w;
  };
  for (const word of words(runs)) {
    if (word.broken) endLine();
    if (word.pieces.length === 0) continue;
    const space = word.spaced && used > 0 ? 1 : 0;
    if (used + space + word.width <= max) {
      if (space) add(" ", word.spaceRun, 1);
      for (const p of word.pieces) add(p.text, p.run, displayWidth(p.text));
      continue;
    }
    if (word.width <= max) {
      if (used > 0) endLine();
      for (const p of word.pieces) add(p.text, p.run, displayWidth(p.text));
      continue;
    }
    // Wider than a line: fill this line, then whole lines, cluster by cluster.
    if (space && used + 2 <= max) add(" ", word.spaceRun, 1);
    else if (used > 0) endLine();
    for (const p of word.pieces) {
      for (const g of graphemes(p.text)) {
        const w = displayWidth(g);
        if (used + w > max && used > 0) endLine();
        add(g, p.run, w);
      }
    }
  }
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines.map((pieces) => drawLine(pieces, runs, options));
}

/** The words of `runs`, each a list of pieces; a word continues across runs when no space separates them. */
function* words(runs: readonly StyledRun[]): Generator<Word> {
  let current: Word | undefined;
  let spaced = false;
  let spaceRun = 0;
  let broken = false;
  let glue = false;
  for (let r = 0; r < runs.length; r++) {
    const text = runs[r]?.text ?? "";
    ATOM.lastIndex = 0;
    for (let m = ATOM.exec(text); m; m = ATOM.exec(text)) {
      const atom = m[0];
      if (atom === "\n") {
        if (current) yield current;
        current = undefined;
        broken = true;
        spaced = false;
        glue = false;
        continue;
      }
      if (atom[0] === " " || atom[0] === "\t") {
        if (current) yield current;
        current = undefined;
        if (!spaced) spaceRun = r;
        spaced = true;
        glue = false;
        continue;
      }
      const wide = WIDE_ONE.test(atom);
      const w = displayWidth(atom);
      if (current && glue && !wide) {
        const last = current.pieces.at(-1);
        if (last && last.run === r) last.text += atom;
        else current.pieces.push({ text: atom, run: r });
        current.width += w;
      } else {
        if (current) yield current;
        current = { pieces: [{ text: atom, run: r }], width: w, spaced, spaceRun, broken };
        spaced = false;
        broken = false;
      }
      glue = !wide;
    }
  }
  if (current) yield current;
  else if (broken) yield { pieces: [], width: 0, spaced: false, spaceRun: 0, broken: true };
}

function drawLine(pieces: readonly Piece[], runs: readonly StyledRun[], options: WrapOptions): string {
  // Spaces at the end of a line would only push the cursor on (and break a line that fills the width).
  const last = pieces.at(-1);
  if (last?.text.endsWith(" ")) last.text = last.text.trimEnd();
  let out = "";
  for (const piece of pieces) {
    if (piece.text === "") continue;
    const run = runs[piece.run];
    const format: Format = run?.format ?? ((t) => t);
    const styled = format(piece.text);
    const target = options.hyperlinks && run?.href !== undefined ? linkTarget(run.href) : undefined;
    out += target !== undefined ? hyperlink(styled, target) : styled;
  }
  return out;
}
