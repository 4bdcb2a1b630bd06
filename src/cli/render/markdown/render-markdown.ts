import type { MarkdownOptions } from "./markdown-options.js";
import { MarkdownStream } from "./markdown-stream.js";

/**
 * A whole Markdown document as terminal lines at `width` cells (see `MarkdownStream` for what is drawn and how
 * untrusted text is handled). The same lines a stream of the same text shows once it ends.
 */
export function renderMarkdown(text: string, width: number, options: MarkdownOptions = {}): string[] {
  const stream = new MarkdownStream(options);
  stream.append(text);
  stream.end();
  return stream.render(width);
}
