/**
 * Splits `text` into pieces of at most `size` code points, never inside a surrogate pair, so every
 * piece is valid UTF-16 and encodes to valid UTF-8 on its own. An empty text gives no pieces.
 */
export function chunkText(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += step) out.push(points.slice(i, i + step).join(""));
  return out;
}

/** Length in code points (what the simulator calls "characters"). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `count` code points of `text`. */
export function takeCodePoints(text: string, count: number): string {
  return Array.from(text).slice(0, Math.max(0, count)).join("");
}
