import TurndownService from "turndown";
import { gfm } from "turndown-plugin-gfm";

let service: TurndownService | undefined;

/**
 * A web page as Markdown (turndown, with GitHub tables): headings, links, lists, code blocks and tables kept,
 * scripts, styles and other markup that carries no reading dropped. Created on first use, not at import.
 */
export function htmlToMarkdown(html: string): string {
  if (!service) {
    service = new TurndownService({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
      emDelimiter: "*",
    });
    service.use(gfm);
    service.remove(["script", "style", "noscript", "template", "iframe", "svg", "canvas"]);
  }
  return service
    .turndown(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
