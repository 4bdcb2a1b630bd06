import type { MarkdownTheme } from "./markdown-theme.js";

/** How Markdown is drawn. Every field is optional; the defaults suit an answer at a colour terminal. */
export interface MarkdownOptions {
  /** SGR colours and styles (default true). Off: plain text with the same layout (bars, bullets, box tables). */
  color?: boolean;
  /**
   * Links as OSC 8 hyperlinks (the text clickable) besides the dim URL. Only for terminals known to support them
   * (`supportsHyperlinks(process.env)`); default false, since others may print the sequence's bytes.
   */
  hyperlinks?: boolean;
  /** Styles to use instead of the default theme's (e.g. a pi-tui app's own); missing ones come from the default. */
  theme?: Partial<MarkdownTheme>;
}

/**
 * A pi-tui Component, structurally (pi-tui's own `Component` accepts it): `render` returns the lines at
 * `width`, none wider than `width` cells, each closing the styles it opens; `invalidate` drops cached lines.
 */
export interface MarkdownComponent {
  render(width: number): string[];
  invalidate(): void;
}
