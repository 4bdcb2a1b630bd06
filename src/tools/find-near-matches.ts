/**
 * Explains why `needle` was not found in `content`, for the model to correct its Edit: a match that
 * differs only in whitespace (indentation, trailing spaces) if there is one, else the lines most similar
 * to the first non-empty line of `needle`, with their line numbers and one line of context.
 */
export function describeNearMatches(content: string, needle: string, maxCandidates = 3): string {
  const lines = content.split("\n").map((line) => line.replace(/\r$/, ""));
  const wanted = needle
    .split("\n")
    .map(normalize)
    .filter((line, i, all) => line !== "" || (i > 0 && i < all.length - 1));
  while (wanted.length > 0 && wanted[wanted.length - 1] === "") wanted.pop();
  if (wanted.length === 0) return "";
  const normalized = lines.map(normalize);
  for (let i = 0; i + wanted.length <= normalized.length; i++) {
    if (wanted.every((line, j) => normalized[i + j] === line)) {
      return [
        `A match that differs only in whitespace (indentation, spaces or tabs) was found at lines ${i + 1}-${i + wanted.length}. old_string must match exactly; the exact text there is:`,
        numbered(lines, i, i + wanted.length),
      ].join("\n");
    }
  }
  const first = wanted.find((line) => line !== "")!;
  const scored = normalized
    .map((line, index) => ({ index, score: similarity(first, line) }))
    .filter((candidate) => candidate.score >= 0.5)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, maxCandidates)
    .sort((a, b) => a.index - b.index);
  if (scored.length === 0) {
    return "No similar lines were found: Read the file again to see its current content.";
  }
  const excerpts = scored.map(({ index }) =>
    numbered(lines, Math.max(0, index - 1), Math.min(lines.length, index + 2)),
  );
  return [`The lines most similar to the first line of old_string:`, excerpts.join("\n  ...\n")].join("\n");
}

function normalize(line: string): string {
  return line.replace(/\s+/g, " ").trim();
}

function numbered(lines: string[], from: number, to: number): string {
  return lines
    .slice(from, to)
    .map(
      (line, i) =>
        `${String(from + i + 1).padStart(6)}\t${line.length > 500 ? `${line.slice(0, 500)}…` : line}`,
    )
    .join("\n");
}

/** Dice coefficient of character bigrams: cheap, and robust to small typos and changed identifiers. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const pair = a.slice(i, i + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const pair = b.slice(i, i + 2);
    const left = counts.get(pair) ?? 0;
    if (left > 0) {
      counts.set(pair, left - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}
