import type { ImageBlock, TextBlock } from "../messages/index.js";

/** The image types every provider takes in a tool result; others are described instead. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** Anthropic's limit for one image; a larger one would fail the whole request, so it is described instead. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** One item of MCP content (tool results, prompt messages, resource contents), loosely typed: servers vary. */
export type McpContent = { type: string; [key: string]: unknown };
/** One item of `resources/read` contents, or a `resource` content's `resource`. */
export type McpResourceContents = {
  uri: string;
  mimeType?: string | undefined;
  text?: string | undefined;
  blob?: string | undefined;
};

/**
 * What one MCP content item becomes for the model:
 * - `text` → its text;
 * - `image` (PNG, JPEG, GIF, WebP up to 5 MB) → an image block; other types or larger → a line describing it;
 * - `audio` → a line describing it (no provider takes audio in a tool result);
 * - `resource` with `text` → its text; with a `blob` → an image block when it is an image as above, else a line
 *   describing it (URI, type, size);
 * - `resource_link` → a line with its name, URI and, when given, type and description;
 * - anything else → a line naming the unknown type.
 */
export function mapMcpContent(item: McpContent): Array<TextBlock | ImageBlock> {
  switch (item.type) {
    case "text":
      return [{ type: "text", text: String(item.text ?? "") }];
    case "image":
      return [imageOrDescription(String(item.data ?? ""), String(item.mimeType ?? ""), "image")];
    case "audio":
      return [
        text(`[audio: ${item.mimeType ?? "unknown type"}, ${sizeOf(String(item.data ?? ""))} — not shown]`),
      ];
    case "resource":
      return [mapResourceContents((item.resource ?? {}) as McpResourceContents)];
    case "resource_link": {
      const details = [item.mimeType, item.description].filter((x) => typeof x === "string" && x !== "");
      return [
        text(
          `[resource link: ${item.name ?? item.title ?? item.uri} — ${item.uri}${details.length ? ` (${details.join("; ")})` : ""}]`,
        ),
      ];
    }
    default:
      return [text(`[content of type ${JSON.stringify(item.type)}, which mitsu does not show]`)];
  }
}

/** A resource's contents: its text, an image block for an image blob, or a line describing a binary one. */
export function mapResourceContents(contents: McpResourceContents): TextBlock | ImageBlock {
  if (typeof contents.text === "string") return text(contents.text);
  if (typeof contents.blob === "string") {
    return imageOrDescription(contents.blob, contents.mimeType ?? "", `binary resource ${contents.uri}`);
  }
  return text(`[resource ${contents.uri} with no content]`);
}

function imageOrDescription(data: string, mimeType: string, what: string): TextBlock | ImageBlock {
  const bytes = Math.floor((data.length * 3) / 4);
  if (IMAGE_TYPES.has(mimeType) && bytes <= MAX_IMAGE_BYTES && data !== "") {
    return { type: "image", source: { type: "base64", media_type: mimeType, data } };
  }
  const why = IMAGE_TYPES.has(mimeType) && bytes > MAX_IMAGE_BYTES ? ", too large to show" : ", not shown";
  return text(`[${what}: ${mimeType || "unknown type"}, ${sizeOf(data)}${why}]`);
}

function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
  return bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function text(value: string): TextBlock {
  return { type: "text", text: value };
}
