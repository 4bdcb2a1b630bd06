import type { Format } from "./markdown-theme.js";

/**
 * A piece of inline text with one style: what inline Markdown becomes before it is wrapped. Styles are applied
 * after wrapping, per line, so that a wrapped line never carries half an escape sequence.
 */
export interface StyledRun {
  /** Plain text, free of control characters; `\n` is a line break. */
  text: string;
  format: Format;
  /** A link target to make this run an OSC 8 hyperlink (only when the terminal supports them). */
  href?: string;
}
