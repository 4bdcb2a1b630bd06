import type { ShellWord } from "./shell-word.js";

/** More words than this from one brace expansion are not listed: the word counts as unknown. */
const MAX_ALTERNATIVES = 256;

/**
 * The words a literal argument may become once bash expands its braces (`{a,b}.txt` → `a.txt`, `b.txt`), or
 * undefined when what it names cannot be told in advance: `~user`, an extended glob, or a glob part that starts
 * with a dot or a bracket (`.gi?`, `[.]git`), which may match a dot-name such as `.git`. Other globs stay as
 * written: without `dotglob` (a line with `shopt` is unaccounted) they match no dot-name.
 */
export function wordAlternatives(word: ShellWord): string[] | undefined {
  if (!word.pattern) return [word.value];
  const expanded = expandBraces(word.value);
  if (expanded === undefined) return undefined;
  for (const alternative of expanded) {
    if (/^~[^/]/.test(alternative)) return undefined;
    if (/[@!?*+]\(/.test(alternative)) return undefined;
    if (alternative.split("/").some((part) => /[*?[]/.test(part) && /^[.[]/.test(part))) return undefined;
  }
  return expanded;
}

/** Bash's brace expansion of `text`: `{a,b}` lists, `{1..3}` ranges (kept as one `?` word, they name no dot). */
function expandBraces(text: string): string[] | undefined {
  const found = firstBrace(text);
  if (found === undefined) return [text];
  const { open, close, items } = found;
  const results: string[] = [];
  for (const item of items) {
    const rest = expandBraces(`${text.slice(0, open)}${item}${text.slice(close + 1)}`);
    if (rest === undefined) return undefined;
    results.push(...rest);
    if (results.length > MAX_ALTERNATIVES) return undefined;
  }
  return results;
}

/** The first `{…}` that holds a top-level comma or a `..` range, with its items. */
function firstBrace(text: string): { open: number; close: number; items: string[] } | undefined {
  for (let open = text.indexOf("{"); open !== -1; open = text.indexOf("{", open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < text.length; i++) {
      const c = text[i];
      if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        const body = text.slice(open + 1, i);
        if (commas.length > 0) {
          const items: string[] = [];
          let start = open + 1;
          for (const comma of [...commas, i]) {
            items.push(text.slice(start, comma));
            start = comma + 1;
          }
          return { open, close: i, items };
        }
        if (/^[^.]*\.\.[^.]*(\.\.[^.]*)?$/.test(body)) return { open, close: i, items: ["?"] };
        break;
      } else if (c === "," && depth === 1) commas.push(i);
    }
  }
  return undefined;
}
