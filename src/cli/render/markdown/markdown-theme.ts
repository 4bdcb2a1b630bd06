import { createStyle } from "../style.js";

/** One style: wraps a piece of text (one line's piece at most) in its escape sequences, or returns it as is. */
export type Format = (text: string) => string;

/**
 * The styles Markdown is drawn with. Each applies to text of one line only (the renderer styles after wrapping),
 * so no style crosses a line end: pi-tui resets styles at every line end anyway.
 */
export interface MarkdownTheme {
  heading: (depth: number) => Format;
  bold: Format;
  italic: Format;
  strikethrough: Format;
  /** An inline code span. */
  code: Format;
  /** A link's text. */
  link: Format;
  /** A link's URL, shown after its text. */
  url: Format;
  /** The bar before a block quote's lines. */
  quoteBar: Format;
  /** A list's bullet or number, a task's box. */
  listMarker: Format;
  /** A horizontal rule, a table's borders. */
  rule: Format;
  /** A table's header cells. */
  tableHeader: Format;
  /** A code block's language label. */
  codeLabel: Format;
  /** A code block's text where the highlighter gave no scope (or none is loaded for its language). */
  codeText: Format;
  /** A highlight.js scope (`keyword`, `string`, `title.function` …) in a code block. */
  syntax: (scope: string) => Format;
}

const plain: Format = (text) => text;

/** The default theme: mitsu's colours when `color`, else every style the identity (layout stays). */
export function createMarkdownTheme(color: boolean): MarkdownTheme {
  const s = createStyle(color);
  const bold = s.bold;
  const syntaxStyles: Record<string, Format> = {
    keyword: s.magenta,
    built_in: s.cyan,
    type: s.cyan,
    literal: s.blue,
    number: s.blue,
    string: s.green,
    regexp: s.red,
    subst: plain,
    symbol: s.blue,
    title: s.yellow,
    params: plain,
    comment: s.gray,
    doctag: s.gray,
    meta: s.gray,
    attr: s.cyan,
    attribute: s.cyan,
    variable: s.red,
    tag: s.red,
    name: s.red,
    "selector-tag": s.red,
    "selector-class": s.yellow,
    "selector-id": s.yellow,
    property: s.cyan,
    addition: s.green,
    deletion: s.red,
    section: (t) => s.bold(s.blue(t)),
    bullet: s.yellow,
    emphasis: s.italic,
    strong: s.bold,
    link: s.underline,
    quote: s.gray,
  };
  return {
    heading: (depth) =>
      depth === 1 ? (t) => bold(s.underline(t)) : depth === 2 ? bold : (t) => bold(s.italic(t)),
    bold,
    italic: s.italic,
    strikethrough: s.strikethrough,
    code: s.cyan,
    link: (t) => s.underline(s.blue(t)),
    url: s.dim,
    quoteBar: s.gray,
    listMarker: s.cyan,
    rule: s.gray,
    tableHeader: bold,
    codeLabel: s.dim,
    codeText: plain,
    // `title.function` → `title`; a scope the map lacks stays plain.
    syntax: (scope) => syntaxStyles[scope] ?? syntaxStyles[scope.split(".")[0] ?? ""] ?? plain,
  };
}
