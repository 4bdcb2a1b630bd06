import type TurndownService from "turndown";
import { lazyRequire } from "../fs/lazy-require.js";

// Loaded on the first page (~30 ms of module loading that no other command needs).
const turndown = lazyRequire<typeof TurndownService>("turndown");
const turndownGfm = lazyRequire<typeof import("turndown-plugin-gfm")>("turndown-plugin-gfm");

let service: TurndownService | undefined;

/**
 * A web page as Markdown (turndown, with GitHub tables): headings, links, lists, code blocks and tables kept,
 * scripts, styles and other markup that carries no reading dropped. Loaded and created on first use, not at import.
 */
export function htmlToMarkdown(html: string): string {
  if (!service) {
    const Turndown = turndown();
    service = new Turndown({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
      emDelimiter: "*",
    });
    service.use(turndownGfm().gfm);
    service.remove(["script", "style", "noscript", "template", "iframe", "svg", "canvas"]);
  }
  return service
    .turndown(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
