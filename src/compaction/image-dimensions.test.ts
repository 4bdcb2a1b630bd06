import { describe, expect, it } from "vitest";
import type { Message } from "../messages/index.js";
import { contextTokens, estimateMessageTokens } from "./estimate-tokens.js";
import { imageDimensions } from "./image-dimensions.js";
import { anthropicImageTokens, geminiImageTokens, imageTokens, openaiImageTokens } from "./image-tokens.js";

const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const u16le = (n: number) => [n & 255, (n >>> 8) & 255];
const u24le = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];

/** A PNG signature and IHDR for `width` × `height`, then `size` bytes of (incompressible-looking) data. */
function fakePng(width: number, height: number, size = 0): Buffer {
  const head = Buffer.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    0,
    0,
    0,
    13,
    0x49,
    0x48,
    0x44,
    0x52,
    ...u32(width),
    ...u32(height),
    8,
    6,
    0,
    0,
    0,
  ]);
  const body = Buffer.alloc(size);
  for (let i = 0; i < size; i++) body[i] = (i * 7919) & 255;
  return Buffer.concat([head, body]);
}

function jpeg(width: number, height: number, appBytes: number): Buffer {
  const app = Buffer.alloc(appBytes, 0x41);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    // An APP1 segment (EXIF) before the frame header, as cameras write it.
    Buffer.from([0xff, 0xe1, ((appBytes + 2) >> 8) & 255, (appBytes + 2) & 255]),
    app,
    Buffer.from([
      0xff,
      0xc0,
      0,
      17,
      8,
      (height >> 8) & 255,
      height & 255,
      (width >> 8) & 255,
      width & 255,
      3,
    ]),
    Buffer.alloc(64),
  ]);
}

const riff = (chunk: string, payload: number[]) =>
  Buffer.from([
    ...Buffer.from("RIFF"),
    0,
    0,
    0,
    0,
    ...Buffer.from("WEBP"),
    ...Buffer.from(chunk),
    10,
    0,
    0,
    0,
    ...payload,
  ]);

describe("imageDimensions", () => {
  it("reads PNG, GIF, JPEG (past an EXIF segment at any byte offset) and the three WebP kinds from base64 headers", () => {
    expect(imageDimensions(fakePng(1920, 1080, 100).toString("base64"))).toEqual({
      width: 1920,
      height: 1080,
    });
    const gif = Buffer.from([...Buffer.from("GIF89a"), ...u16le(640), ...u16le(480), 0, 0, 0, 0]);
    expect(imageDimensions(gif.toString("base64"))).toEqual({ width: 640, height: 480 });
    for (const app of [16, 17, 18, 30_000])
      expect(imageDimensions(jpeg(4032, 3024, app).toString("base64"))).toEqual({
        width: 4032,
        height: 3024,
      });
    const vp8x = riff("VP8X", [0, 0, 0, 0, ...u24le(799), ...u24le(599)]);
    expect(imageDimensions(vp8x.toString("base64"))).toEqual({ width: 800, height: 600 });
    const bits = (799 & 0x3fff) | ((599 & 0x3fff) << 14);
    const vp8l = riff("VP8L", [
      0x2f,
      bits & 255,
      (bits >>> 8) & 255,
      (bits >>> 16) & 255,
      (bits >>> 24) & 255,
    ]);
    expect(imageDimensions(vp8l.toString("base64"))).toEqual({ width: 800, height: 600 });
    const vp8 = riff("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(800), ...u16le(600)]);
    expect(imageDimensions(vp8.toString("base64"))).toEqual({ width: 800, height: 600 });
    expect(imageDimensions(Buffer.from("not an image at all").toString("base64"))).toBeUndefined();
  });

  it("counts tokens by each provider's documented rule", () => {
    // Anthropic: 1000 × 1000 is under both limits: 1,000,000 / 750.
    expect(anthropicImageTokens({ width: 1000, height: 1000 })).toBe(1334);
    // Scaled to ~1.15 MP first: about 1,533 tokens whatever the size.
    expect(anthropicImageTokens({ width: 8000, height: 6000 })).toBeLessThanOrEqual(1534);
    // OpenAI high detail: 2048 × 4096 → 1024 × 2048 → 768 × 1536: 2 × 3 tiles.
    expect(openaiImageTokens({ width: 2048, height: 4096 })).toBe(170 * 6 + 85);
    expect(geminiImageTokens({ width: 300, height: 300 })).toBe(258);
    expect(geminiImageTokens({ width: 1920, height: 1080 })).toBe(258 * 6);
    expect(imageTokens(undefined)).toBe(1600);
  });
});

describe("a 3 MB PNG is counted by its pixels, not as a million tokens of text", () => {
  it("estimates the Read result of a 3 MB screenshot at about 1,600 tokens", () => {
    const data = fakePng(2880, 1800, 3 * 1024 * 1024).toString("base64");
    const result: Message = {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "t1",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data } }],
        },
      ],
    };
    const tokens = estimateMessageTokens(result, "anthropic");
    expect(tokens).toBeGreaterThan(1_000);
    expect(tokens).toBeLessThan(2_000);
    expect(contextTokens([result])).toBeLessThan(2_000);
    // A user's pasted image too.
    const pasted: Message = {
      role: "user",
      content: [{ type: "image", source: { type: "base64", media_type: "image/png", data } }],
    };
    expect(estimateMessageTokens(pasted, "openai-chat")).toBeLessThan(2_000);
  });
});
