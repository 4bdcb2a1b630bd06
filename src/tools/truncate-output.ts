/** What `truncateOutput` kept of a text. */
export interface TruncatedOutput {
  text: string;
  truncated: boolean;
  /** Characters left out of the middle. */
  omittedChars: number;
  /** Whole or partial lines left out of the middle. */
  omittedLines: number;
}

/**
 * Keeps the head and the tail of `text` within `maxChars` (plus a one-line marker), since the start of
 * a command's output says what ran and the end says how it finished. Cuts at line breaks when one is
 * near, so the model does not see half lines.
 */
export function truncateOutput(text: string, maxChars: number): TruncatedOutput {
  if (text.length <= maxChars) return { text, truncated: false, omittedChars: 0, omittedLines: 0 };
  const half = Math.floor(maxChars / 2);
  let headEnd = half;
  const headBreak = text.lastIndexOf("\n", half);
  if (headBreak > half * 0.8) headEnd = headBreak + 1;
  let tailStart = text.length - (maxChars - headEnd);
  const tailBreak = text.indexOf("\n", tailStart);
  if (tailBreak !== -1 && tailBreak < tailStart + half * 0.2) tailStart = tailBreak + 1;
  const middle = text.slice(headEnd, tailStart);
  const omittedLines = countLines(middle);
  const head = text.slice(0, headEnd);
  const marker = `${head.endsWith("\n") ? "" : "\n"}... [${middle.length} characters (${omittedLines} ${omittedLines === 1 ? "line" : "lines"}) omitted] ...\n`;
  return {
    text: `${head}${marker}${text.slice(tailStart)}`,
    truncated: true,
    omittedChars: middle.length,
    omittedLines,
  };
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}
