import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ImageBlock } from "../messages/index.js";
import { detectFileKind, SNIFF_BYTES } from "./detect-file-kind.js";
import type { Workspace } from "./workspace.js";

/** A file brought into a message by `@path`: its text, or an image block. */
export type Attachment =
  | { kind: "text"; path: string; text: string }
  | { kind: "image"; path: string; block: ImageBlock; bytes: number }
  /** The path names a file that cannot be attached; `reason` says why (too large, binary). */
  | { kind: "refused"; path: string; reason: string };

export interface ReadAttachmentOptions {
  /** Confine to these roots (a command or skill body, which a repository may have written); absent: any path. */
  workspace?: Workspace;
  /** The folder relative paths start from (default the workspace's working folder). */
  cwd?: string;
  /** Largest text file inlined. Default 256 KiB. */
  maxTextBytes?: number;
  /** Largest image attached. Default 3.75 MiB (its base64 stays under the 5 MB providers accept). */
  maxImageBytes?: number;
}

/**
 * Reads a file named by `@path` or pasted as a path: text (UTF-8) as is, PNG/JPEG/GIF/WebP as an image block.
 * Resolves to undefined when `path` names no readable file (or, with a workspace, one outside it): the caller
 * then leaves the text as typed.
 */
export async function readAttachment(
  path: string,
  options: ReadAttachmentOptions = {},
): Promise<Attachment | undefined> {
  let absolute: string;
  if (options.workspace) {
    absolute = await options.workspace.resolve(path).catch(() => "");
    if (absolute === "") return undefined;
  } else {
    const expanded = path === "~" || path.startsWith("~/") ? resolve(homedir(), path.slice(2)) : path;
    absolute = resolve(options.cwd ?? process.cwd(), expanded);
  }
  const stats = await stat(absolute).catch(() => undefined);
  if (!stats?.isFile()) return undefined;
  const shown = options.workspace ? options.workspace.display(absolute) : path;
  const content = await readFile(absolute).catch(() => undefined);
  if (!content) return undefined;
  const kind = detectFileKind(content.subarray(0, SNIFF_BYTES));
  if (kind.kind === "image") {
    const max = options.maxImageBytes ?? 3.75 * 1024 * 1024;
    if (content.byteLength > max) {
      return {
        kind: "refused",
        path: shown,
        reason: `the image is ${content.byteLength} bytes, more than the ${max} a model accepts`,
      };
    }
    return {
      kind: "image",
      path: shown,
      bytes: content.byteLength,
      block: {
        type: "image",
        source: { type: "base64", media_type: kind.mediaType, data: content.toString("base64") },
      },
    };
  }
  if (kind.kind === "binary")
    return { kind: "refused", path: shown, reason: `${kind.reason}; only text and images can be attached` };
  const max = options.maxTextBytes ?? 256 * 1024;
  if (content.byteLength > max) {
    return {
      kind: "refused",
      path: shown,
      reason: `the file is ${content.byteLength} bytes, more than the ${max} that can be inlined; ask for it to be Read instead`,
    };
  }
  return { kind: "text", path: shown, text: content.toString("utf8") };
}
