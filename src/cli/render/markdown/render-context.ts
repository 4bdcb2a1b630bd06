import type { MarkdownTheme } from "./markdown-theme.js";

/** What every block renderer needs besides its token and width. */
export interface RenderContext {
  theme: MarkdownTheme;
  /** Links as OSC 8 hyperlinks (see `MarkdownOptions.hyperlinks`). */
  hyperlinks: boolean;
  /** Whether styles show: without them, headings keep their `#` marks so they still read as headings. */
  color: boolean;
}

/**
 * Deepest nesting of quotes and lists drawn as nesting; deeper levels are drawn at this depth (their text
 * still shown), so a hostile answer nested a thousand deep costs no more width or time per line than this.
 */
export const MAX_DEPTH = 8;
