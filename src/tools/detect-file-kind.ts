/** How the first bytes of a file say it should be shown. */
export type FileKind =
  | { kind: "image"; mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp" }
  | { kind: "binary"; reason: string }
  | { kind: "text" };

/** How many leading bytes `detectFileKind` needs (git uses the same window for its binary check). */
export const SNIFF_BYTES = 8192;

/**
 * Classifies a file from its first bytes: the four image formats every provider accepts, by their magic
 * numbers; binary when a NUL byte appears or the bytes are not UTF-8 (a sequence cut at the end of the
 * sample is allowed, since the sample may end mid-character); text otherwise.
 */
export function detectFileKind(head: Uint8Array): FileKind {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return image("image/png");
  if (startsWith(head, [0xff, 0xd8, 0xff])) return image("image/jpeg");
  if (
    startsWith(head, [0x47, 0x49, 0x46, 0x38]) &&
    (head[4] === 0x37 || head[4] === 0x39) &&
    head[5] === 0x61
  ) {
    return image("image/gif");
  }
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head.subarray(8), [0x57, 0x45, 0x42, 0x50])) {
    return image("image/webp");
  }
  if (head.includes(0)) return { kind: "binary", reason: "it contains NUL bytes" };
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
  } catch {
    return { kind: "binary", reason: "it is not valid UTF-8 text" };
  }
  return { kind: "text" };
}

function image(mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp"): FileKind {
  return { kind: "image", mediaType };
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}
