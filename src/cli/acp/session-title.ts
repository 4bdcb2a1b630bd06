/** A session's title for the editor's list: its first prompt's first line, cut to 80 characters. */
export function titleOf(prompt: string): string {
  const line = prompt.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
