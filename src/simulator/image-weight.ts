import { createHash } from "node:crypto";

/** Which provider's rule prices an image (the protocol the request came in on). */
export type ImageRule = "anthropic" | "openai" | "gemini";

const IMAGE_BASE64 = /^(?:data:image\/[a-z+.-]+;base64,)?(iVBORw0KGgo|\/9j\/|R0lGOD|UklGR)/;

/**
 * The simulator's stand-in for a base64 image in the canonical prompt it counts: a digest of the bytes (two
 * different images differ, as they do for the cache) padded to the image's price in tokens × charsPerToken, so
 * that a 3 MB screenshot counts what the provider charges for it (~1,600 tokens on Anthropic), not a million
 * tokens of base64. Undefined for any other string. The size is read from the image's header, as the real APIs
 * do after decoding; an unreadable header counts as a 1,000 × 1,000 image.
 */
export function imageStandIn(value: string, rule: ImageRule, charsPerToken: number): string | undefined {
  if (value.length < 64 || !IMAGE_BASE64.test(value)) return undefined;
  const data = value.startsWith("data:") ? value.slice(value.indexOf(",") + 1) : value;
  const { width, height } = dimensions(Buffer.from(data.slice(0, 90_000), "base64")) ?? {
    width: 1000,
    height: 1000,
  };
  const tokens = priceOf(width, height, rule);
  const digest = createHash("sha256").update(data).digest("hex");
  return `image:${digest}:${".".repeat(Math.max(0, tokens * charsPerToken - 80))}`;
}

function priceOf(width: number, height: number, rule: ImageRule): number {
  if (rule === "gemini")
    return width <= 384 && height <= 384 ? 258 : 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
  if (rule === "openai") {
    const fit = Math.min(1, 2048 / Math.max(width, height));
    const short = Math.min(1, 768 / Math.min(width * fit, height * fit));
    const w = width * fit * short;
    const h = height * fit * short;
    return 170 * Math.ceil(w / 512) * Math.ceil(h / 512) + 85;
  }
  const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt(1_150_000 / (width * height)));
  return Math.ceil((width * scale * height * scale) / 750);
}

function dimensions(b: Buffer): { width: number; height: number } | undefined {
  if (b.length < 30) return undefined;
  if (b[0] === 0x89 && b.toString("latin1", 12, 16) === "IHDR")
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.toString("latin1", 0, 3) === "GIF") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.toString("latin1", 0, 4) === "RIFF") {
    const chunk = b.toString("latin1", 12, 16);
    if (chunk === "VP8X") return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    if (chunk === "VP8L") {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  // JPEG: walk the segments to the first frame header.
  let at = 2;
  while (at + 9 < b.length && b[at] === 0xff) {
    const type = b[at + 1] ?? 0;
    if (type >= 0xc0 && type <= 0xcf && type !== 0xc4 && type !== 0xc8 && type !== 0xcc)
      return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
    at += 2 + b.readUInt16BE(at + 2);
  }
  return undefined;
}

/** A JSON.stringify replacer that puts `imageStandIn` in place of every base64 image string. */
export function imageReplacer(rule: ImageRule, charsPerToken: number) {
  return (_key: string, value: unknown): unknown =>
    typeof value === "string" ? (imageStandIn(value, rule, charsPerToken) ?? value) : value;
}
