import type { ContentBlock, ImageBlock } from "../../messages/index.js";
import { readAttachment } from "../../tools/read-attachment.js";
import type { Workspace } from "../../tools/workspace.js";

const IMAGE_EXTENSION = String.raw`\.(?:png|jpe?g|gif|webp)`;
/** A path pasted into the prompt (what dropping a file on a terminal types): quoted, or with `\ ` for spaces. */
const PASTED = new RegExp(
  String.raw`'((?:/|~/)[^'\n]+${IMAGE_EXTENSION})'|"((?:/|~/)[^"\n]+${IMAGE_EXTENSION})"|(?<=^|\s)((?:/|~/)(?:\\ |[^\s\\])+${IMAGE_EXTENSION})(?=$|\s)`,
  "gi",
);
const AT_FILE = /(^|[\s(["'])@([^\s`'"()<>[\]{}]+)/g;
const TRAILING = /[.,;:!?]+$/;

export interface PromptContentOptions {
  cwd: string;
  /**
   * Read only inside these folders. Print mode's prompt may be piped from anywhere (an issue's text, a file a
   * script reads), so there a path outside the workspace stays as typed; at the terminal a person types it.
   */
  confine?: Workspace;
  /** The model takes images (`ModelEntry.images`). */
  images: boolean;
  /** For the message when it does not. */
  model: string;
}

/**
 * The user message for a typed prompt: `@path` to an image, or an image file's path pasted in (a file dropped
 * on the terminal), attaches it as an image block, shown in the text as `[Image #1: path]`; `@path` to a text file
 * inlines it as a `<file>` block after the text. Any path is read unless `confine` is given. A model that
 * takes no images gets nothing sent: the error says so. Other `@words` stay as typed.
 */
export async function promptContent(
  text: string,
  options: PromptContentOptions,
): Promise<{ content: ContentBlock[] } | { error: string }> {
  const where = options.confine ? { workspace: options.confine } : { cwd: options.cwd };
  const images: Array<{ path: string; block: ImageBlock }> = [];
  const files: Array<{ path: string; text: string }> = [];
  const problems: string[] = [];
  const imageLabel = (path: string, block: ImageBlock) => {
    let index = images.findIndex((image) => image.path === path);
    if (index === -1) index = images.push({ path, block }) - 1;
    return `[Image #${index + 1}: ${path}]`;
  };

  let out = await replaceAsync(text, PASTED, async (whole, ...groups) => {
    const raw = (groups[0] ?? groups[1] ?? groups[2] ?? "") as string;
    const path = raw.replace(/\\ /g, " ");
    const found = await readAttachment(path, where);
    if (found?.kind === "image") return imageLabel(path, found.block);
    if (found?.kind === "refused") problems.push(`${path}: ${found.reason}`);
    return whole;
  });
  out = await replaceAsync(out, AT_FILE, async (whole, lead: string, rawPath: string) => {
    const path = rawPath.replace(TRAILING, "");
    const tail = rawPath.slice(path.length);
    const found = path === "" ? undefined : await readAttachment(path, where);
    if (!found) return whole;
    if (found.kind === "refused") {
      problems.push(`@${path}: ${found.reason}`);
      return whole;
    }
    if (found.kind === "image") return `${lead}${imageLabel(path, found.block)}${tail}`;
    if (!files.some((file) => file.path === path)) files.push({ path, text: found.text });
    return `${lead}${path}${tail}`;
  });
  if (problems.length > 0) return { error: `Cannot attach ${problems.join("; ")}.` };
  if (images.length > 0 && !options.images) {
    return {
      error: `The model ${options.model} does not take images, so the prompt was not sent (${images.map((i) => i.path).join(", ")}). Choose a model that does with --model, or leave the image out.`,
    };
  }
  const blocks = files.map((file) => `<file path="${file.path}">\n${file.text.replace(/\n$/, "")}\n</file>`);
  const body = blocks.length > 0 ? `${out}\n\n${blocks.join("\n\n")}` : out;
  // Images first, then the words about them: what the providers recommend.
  return { content: [...images.map((image) => image.block), { type: "text", text: body }] };
}

async function replaceAsync(
  text: string,
  pattern: RegExp,
  replace: (whole: string, ...groups: string[]) => Promise<string>,
): Promise<string> {
  const parts: string[] = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(at, match.index));
    parts.push(await replace(match[0], ...(match.slice(1) as string[])));
    at = match.index + match[0].length;
  }
  parts.push(text.slice(at));
  return parts.join("");
}
