/** Known limits of one model. */
export interface ModelLimits {
  /** Tokens of input + output the model can attend to. */
  contextWindow: number;
  /** The most tokens one answer may have (`max_tokens` must not exceed it). */
  maxOutputTokens: number;
  /** False for a model that takes no images (the rest of the catalog does). */
  images?: false;
}

/** Limits for a model id the registry does not know (new models appear every month; they pass through). */
export const DEFAULT_LIMITS: Readonly<ModelLimits> = Object.freeze({
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
});

/**
 * The models mitsu knows, per model family (`openai` serves both the Chat Completions and Responses adapters).
 * A dated snapshot (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) takes the limits of the longest id here
 * that it starts with, followed by `-`. Data only: add a line when a model appears.
 */
export const MODEL_CATALOG: Readonly<
  Record<"anthropic" | "openai" | "gemini", Readonly<Record<string, ModelLimits>>>
> = Object.freeze({
  anthropic: {
    // Newer ids known to the installed @anthropic-ai/sdk; limits are the conservative ones of their family
    // until measured (a larger --max-tokens still passes through).
    "claude-opus-5-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-5-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-8": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-7": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-6": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4-6": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-1": { contextWindow: 200_000, maxOutputTokens: 32_000 },
    "claude-opus-4-0": { contextWindow: 200_000, maxOutputTokens: 32_000 },
    "claude-opus-4": { contextWindow: 200_000, maxOutputTokens: 32_000 },
    "claude-sonnet-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4-0": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-haiku-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-3-7-sonnet": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-3-5-haiku": { contextWindow: 200_000, maxOutputTokens: 8_192 },
  },
  openai: {
    "gpt-5.1": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-5": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-5-mini": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-5-nano": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-5-codex": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-4.1": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-4.1-mini": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-4.1-nano": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384 },
    "gpt-4o-mini": { contextWindow: 128_000, maxOutputTokens: 16_384 },
    o3: { contextWindow: 200_000, maxOutputTokens: 100_000 },
    "o3-mini": { contextWindow: 200_000, maxOutputTokens: 100_000, images: false },
    "o4-mini": { contextWindow: 200_000, maxOutputTokens: 100_000 },
  },
  gemini: {
    "gemini-3-pro-preview": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-3-flash-preview": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-pro": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-flash": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-flash-lite": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.0-flash": { contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  },
});

/** The catalog's limits for a model id (exact, else the longest id it is a dated snapshot of). */
export function catalogLimits(family: keyof typeof MODEL_CATALOG, model: string): ModelLimits | undefined {
  const models = MODEL_CATALOG[family];
  const exact = models[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const id of Object.keys(models)) {
    if (model.startsWith(`${id}-`) && (best === undefined || id.length > best.length)) best = id;
  }
  return best === undefined ? undefined : models[best];
}

/**
 * A small, fast model of each family, for side calls (WebFetch reading a page, a web search): cheaper and
 * quicker than the session's model, and good enough to read and summarise.
 */
export const SMALL_MODELS: Readonly<Record<keyof typeof MODEL_CATALOG, string>> = Object.freeze({
  anthropic: "claude-haiku-4-5",
  openai: "gpt-5-mini",
  gemini: "gemini-2.5-flash",
});

/** The model aliases of Claude Code's agent files: a family's current small, middle and large model. */
export type ModelAlias = "haiku" | "sonnet" | "opus";

/**
 * What each alias means in each family, so an agent file written `model: haiku` runs on the small model of
 * whichever provider the session uses. Data only: change a line when a family's current model changes.
 */
export const MODEL_ALIASES: Readonly<
  Record<keyof typeof MODEL_CATALOG, Readonly<Record<ModelAlias, string>>>
> = Object.freeze({
  anthropic: { haiku: "claude-haiku-4-5", sonnet: "claude-sonnet-5-5", opus: "claude-opus-5-5" },
  openai: { haiku: "gpt-5-mini", sonnet: "gpt-5.1", opus: "gpt-5.1" },
  gemini: { haiku: "gemini-2.5-flash-lite", sonnet: "gemini-3-flash-preview", opus: "gemini-3-pro-preview" },
});

export function isModelAlias(text: string): text is ModelAlias {
  return text === "haiku" || text === "sonnet" || text === "opus";
}
