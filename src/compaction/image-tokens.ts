import type { ImageDimensions } from "./image-dimensions.js";

/** What an image whose size cannot be read is counted as: about the most one costs on Anthropic's rule. */
export const UNKNOWN_IMAGE_TOKENS = 1_600;

/**
 * Anthropic: an image is scaled down to fit 1568 px on its long edge and about 1.15 megapixels, then costs
 * width × height / 750 tokens.
 */
export function anthropicImageTokens({ width, height }: ImageDimensions): number {
  let scale = Math.min(1, 1568 / Math.max(width, height));
  scale = Math.min(scale, Math.sqrt(1_150_000 / (width * height)));
  return Math.ceil((width * scale * height * scale) / 750);
}

/**
 * OpenAI (detail "high", the default for large images): fit in 2048 × 2048, then the short side down to
 * 768 px; 170 tokens per 512 px tile, plus 85.
 */
export function openaiImageTokens({ width, height }: ImageDimensions): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w *= short;
  h *= short;
  return 170 * Math.ceil(w / 512) * Math.ceil(h / 512) + 85;
}

/** Gemini: 258 tokens for an image of at most 384 px on both sides, else 258 per 768 × 768 tile. */
export function geminiImageTokens({ width, height }: ImageDimensions): number {
  if (width <= 384 && height <= 384) return 258;
  return 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
}

/**
 * The tokens an image costs on the wire protocol `api` (a provider's `api`: "anthropic", "openai-…",
 * "gemini"), by the provider's documented rule; for another protocol the larger of Anthropic's and OpenAI's
 * (Gemini's tiles would count a very large picture at tens of thousands of tokens, which no other API charges).
 * Undefined dimensions (a URL image, a header that does not parse): `UNKNOWN_IMAGE_TOKENS`.
 */
export function imageTokens(dimensions: ImageDimensions | undefined, api?: string): number {
  if (!dimensions) return UNKNOWN_IMAGE_TOKENS;
  if (api === "anthropic") return anthropicImageTokens(dimensions);
  if (api?.startsWith("openai")) return openaiImageTokens(dimensions);
  if (api === "gemini") return geminiImageTokens(dimensions);
  return Math.max(anthropicImageTokens(dimensions), openaiImageTokens(dimensions));
}
