/** A file body of exactly `size` characters: source-like lines with quotes, backslashes, tabs and some non-ASCII. */
export function makeContent(size: number): string {
  const line = 'const message = "héllo \\"wörld\\"";\tconsole.log(message); // 日本語 ✓\n';
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}
