import type { Token } from "marked";
import { decodeEntities } from "./decode-entities.js";
import type { Format, MarkdownTheme } from "./markdown-theme.js";
import type { StyledRun } from "./styled-run.js";

const same: Format = (text) => text;

const compose =
  (outer: Format, inner: Format): Format =>
  (text) =>
    outer(inner(text));

/**
 * Inline tokens (marked's) as styled runs: emphasis nests its styles, a link shows its text then its URL (dim,
 * in parentheses) unless the text is the URL, an image shows `[image: alt]` and its URL, inline HTML shows as
 * written. Recursion follows the tokens' nesting, which the inline lexer keeps shallow (each level is a
 * delimiter pair in the text).
 */
export function inlineRuns(
  tokens: readonly Token[] | undefined,
  theme: MarkdownTheme,
  format: Format = same,
): StyledRun[] {
  const runs: StyledRun[] = [];
  collect(tokens ?? [], theme, format, undefined, runs);
  return runs;
}

function collect(
  tokens: readonly Token[],
  theme: MarkdownTheme,
  format: Format,
  href: string | undefined,
  runs: StyledRun[],
): void {
  const push = (text: string, f: Format) => {
    if (text !== "") runs.push(href === undefined ? { text, format: f } : { text, format: f, href });
  };
  for (const token of tokens) {
    switch (token.type) {
      case "strong":
        collect(token.tokens ?? [], theme, compose(format, theme.bold), href, runs);
        break;
      case "em":
        collect(token.tokens ?? [], theme, compose(format, theme.italic), href, runs);
        break;
      case "del":
        collect(token.tokens ?? [], theme, compose(format, theme.strikethrough), href, runs);
        break;
      case "codespan":
        push(decodeEntities(String(token.text)).replace(/\n/g, " "), compose(format, theme.code));
        break;
      case "br":
        push("\n", format);
        break;
      case "link": {
        const url = String(token.href ?? "");
        const text = String(token.text ?? "");
        const linkFormat = compose(format, theme.link);
        const start = runs.length;
        collect(token.tokens ?? [], theme, linkFormat, url, runs);
        if (runs.length === start) push(url, linkFormat);
        // An autolink (`<https://…>`, a bare URL) or `[https://x](https://x)` shows its URL once.
        if (url !== "" && url !== text && `mailto:${text}` !== url)
          push(` (${url})`, compose(format, theme.url));
        break;
      }
      case "image": {
        const alt = decodeEntities(String(token.text ?? ""));
        push(`[image${alt === "" ? "" : `: ${alt}`}]`, compose(format, theme.italic));
        if (token.href) push(` (${String(token.href)})`, compose(format, theme.url));
        break;
      }
      case "escape":
        push(String(token.text), format);
        break;
      case "html":
        push(String(token.raw).replace(/\n/g, " "), format);
        break;
      case "text":
        // A list item's text token holds inline tokens of its own; a plain one holds its text.
        if (token.tokens && token.tokens.length > 0) collect(token.tokens, theme, format, href, runs);
        else push(decodeEntities(String(token.text)), format);
        break;
      default:
        push(decodeEntities(String(token.raw ?? "")), format);
    }
  }
}
