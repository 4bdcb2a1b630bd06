import { lazyRequire } from "../../fs/lazy-require.js";

/**
 * Display width at a terminal, by `string-width` (grapheme clusters, East Asian Width, emoji sequences). That
 * library costs ~25 ms to load and more on its first non-ASCII string, so it is loaded on the first string
 * that needs it: plain ASCII, most of what a CLI measures, is counted here.
 */
// require(esm): string-width is ESM only; Node 20.19+ loads it synchronously, as a sync caller needs.
const stringWidth = lazyRequire<{ default: (text: string) => number }>("string-width");
let segmenter: Intl.Segmenter | undefined;

const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/** Cells `text` takes at a terminal (no escape sequences expected in it: they count as nothing). */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  return stringWidth().default(text);
}

/** The grapheme clusters of `text` (what a user sees as one character; an emoji with modifiers is one). */
export function graphemes(text: string): string[] {
  if (PRINTABLE_ASCII.test(text)) return text.split("");
  segmenter ??= new Intl.Segmenter();
  const out: string[] = [];
  for (const { segment } of segmenter.segment(text)) out.push(segment);
  return out;
}

/**
 * `text` cut to fit in `width` terminal cells, with `…` where it was cut; never a cluster cut in two. A status
 * line must never wrap: erasing it erases one row only, and a wrapped row would stay on screen.
 */
export function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width < 1) return "";
  let kept = "";
  let used = 0;
  for (const g of graphemes(text)) {
    const w = displayWidth(g);
    if (used + w > width - 1) break;
    kept += g;
    used += w;
  }
  return `${kept}…`;
}
