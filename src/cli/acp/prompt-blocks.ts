import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { ContentBlock as AcpBlock } from "@agentclientprotocol/sdk";
import type { ContentBlock, ImageBlock, TextBlock } from "../../messages/index.js";
import type { Workspace } from "../../tools/workspace.js";

/** Image types every provider adapter sends. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** Largest image (decoded) sent: providers refuse base64 over 5 MB. */
const MAX_IMAGE_BYTES = 3.75 * 1024 * 1024;
/** Largest text file a `resource_link` inlines; a larger one is named and left to Read. */
const MAX_LINKED_BYTES = 256 * 1024;

export interface PromptBlocksOptions {
  /** What may be read for a `resource_link` to a file: the folders Read may reach. */
  readable: Workspace;
  /** The model takes images. */
  images: boolean;
  model: string;
}

/**
 * A prompt's ACP content as the user message's blocks: text as it is; an image as an image block; an embedded
 * resource as its text in a `<resource>` block (an embedded image as an image); a `resource_link` to a file inside
 * the workspace as the file's text, like an `@file` at the terminal (a link elsewhere, or to something else, is
 * named and not read: an editor must not make mitsu read outside the workspace). Throws a message for the
 * client when a block cannot be sent (an image to a model that takes none, a type it does not carry).
 */
export async function promptBlocks(
  prompt: readonly AcpBlock[],
  options: PromptBlocksOptions,
): Promise<ContentBlock[]> {
  const blocks: ContentBlock[] = [];
  const text = (t: string) => blocks.push({ type: "text", text: t } satisfies TextBlock);
  for (const block of prompt) {
    switch (block.type) {
      case "text":
        if (block.text !== "") text(block.text);
        break;
      case "image":
        blocks.push(imageBlock(block.mimeType, block.data, options));
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          text(`<resource uri=${JSON.stringify(resource.uri)}>\n${resource.text}\n</resource>`);
        } else if (IMAGE_TYPES.has(resource.mimeType ?? "")) {
          blocks.push(imageBlock(resource.mimeType ?? "", resource.blob, options));
        } else {
          text(
            `[resource ${resource.uri} (${resource.mimeType ?? "binary"}, ${base64Bytes(resource.blob)} bytes): not shown]`,
          );
        }
        break;
      }
      case "resource_link":
        text(await linked(block.uri, block.name, options.readable));
        break;
      case "audio":
        throw new Error("audio content is not supported (promptCapabilities.audio is false)");
      default:
        throw new Error(`unknown content type ${JSON.stringify((block as { type?: unknown }).type)}`);
    }
  }
  if (blocks.length === 0) throw new Error("the prompt is empty");
  return blocks;
}

function imageBlock(mimeType: string, data: string, options: PromptBlocksOptions): ImageBlock {
  if (!options.images) throw new Error(`the model ${options.model} does not take images`);
  if (!IMAGE_TYPES.has(mimeType))
    throw new Error(`image type ${JSON.stringify(mimeType)} is not supported (PNG, JPEG, GIF, WebP)`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new Error("the image's data is not base64");
  if (base64Bytes(data) > MAX_IMAGE_BYTES)
    throw new Error(`the image is larger than ${MAX_IMAGE_BYTES} bytes`);
  return { type: "image", source: { type: "base64", media_type: mimeType, data } };
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
}

/** A linked file's text when it is a small text file Read may reach; otherwise a line that names the link. */
async function linked(uri: string, name: string, readable: Workspace): Promise<string> {
  const named = `[${name}](${uri})`;
  let path: string;
  try {
    if (!uri.startsWith("file:")) return named;
    path = await readable.resolve(fileURLToPath(uri));
  } catch {
    return `${named} (outside the workspace: not read)`;
  }
  try {
    const stats = await stat(path);
    if (!stats.isFile() || stats.size > MAX_LINKED_BYTES) return named;
    const content = await readFile(path, "utf8");
    if (content.includes("\0")) return named;
    return `<file path=${JSON.stringify(readable.display(path))}>\n${content}\n</file>`;
  } catch {
    return named;
  }
}
