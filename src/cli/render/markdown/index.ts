/**
 * Markdown at the terminal, streamed: `MarkdownStream` (a pi-tui Component that grows by deltas),
 * `renderMarkdown` (a whole document), `MarkdownWriter` (finished lines written as they come, for a plain
 * terminal), and `supportsHyperlinks` to decide on OSC 8 links.
 */
export { supportsHyperlinks } from "./hyperlinks.js";
export type { MarkdownComponent, MarkdownOptions } from "./markdown-options.js";
export { MarkdownStream } from "./markdown-stream.js";
export { createMarkdownTheme, type Format, type MarkdownTheme } from "./markdown-theme.js";
export { MarkdownWriter, type MarkdownWriterOptions } from "./markdown-writer.js";
export { renderMarkdown } from "./render-markdown.js";
