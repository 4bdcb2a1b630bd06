import type { ImageBlock, ToolResultBlock } from "../../messages/index.js";

/** A tool result split for wire formats whose result is text: the text parts joined, and the images apart. */
export interface SplitToolResult {
  text: string;
  images: ImageBlock[];
}

/** Joins the text parts with blank lines (as one string result would read) and keeps the images in order. */
export function splitToolResult(block: ToolResultBlock): SplitToolResult {
  if (typeof block.content === "string") return { text: block.content, images: [] };
  const texts: string[] = [];
  const images: ImageBlock[] = [];
  for (const part of block.content) {
    if (part.type === "text") texts.push(part.text);
    else images.push(part);
  }
  return { text: texts.join("\n\n"), images };
}

/** `data:` URL for an inline image, the URL itself for a linked one (OpenAI's `image_url` takes both). */
export function imageUrl(block: ImageBlock): string {
  return block.source.type === "base64"
    ? `data:${block.source.media_type};base64,${block.source.data}`
    : block.source.url;
}

/** The tool call's arguments as sent back: the exact text received when it did not parse, else the input. */
export function toolArguments(block: { input: Record<string, unknown>; raw_input?: string }): string {
  return block.raw_input ?? JSON.stringify(block.input);
}
