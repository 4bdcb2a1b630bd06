import type { Usage } from "../messages/index.js";

/**
 * What a model's tokens cost, in US dollars per million tokens. A provider without a cache-write charge
 * (OpenAI, Gemini's implicit cache) has `cacheWrite5m` / `cacheWrite1h` equal to `input`.
 */
export interface ModelPrice {
  input: number;
  output: number;
  /** Writing the prompt cache with the default 5-minute lifetime (Anthropic: 1.25 × input). */
  cacheWrite5m: number;
  /** Writing it with the 1-hour lifetime (Anthropic: 2 × input). */
  cacheWrite1h: number;
  cacheRead: number;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
  cacheRead: input * 0.1,
});
const cachedInput = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheWrite5m: input,
  cacheWrite1h: input,
  cacheRead,
});

/**
 * List prices per model family, as the providers publish them (USD per million tokens; Gemini's for prompts
 * up to 200k tokens). Data only: a dated snapshot takes the price of the longest id it starts with; a price
 * that changed, or a model not here, is set in `models.json` (`"price": {"input": …, …}`). Ids newer than the
 * published tables carry their family's current price until it is known.
 */
export const MODEL_PRICES: Readonly<
  Record<"anthropic" | "openai" | "gemini", Readonly<Record<string, ModelPrice>>>
> = Object.freeze({
  anthropic: {
    "claude-opus-5-5": anthropic(5, 25),
    "claude-opus-5": anthropic(5, 25),
    "claude-opus-4-8": anthropic(5, 25),
    "claude-opus-4-7": anthropic(5, 25),
    "claude-opus-4-6": anthropic(5, 25),
    "claude-opus-4-5": anthropic(5, 25),
    "claude-opus-4-1": anthropic(15, 75),
    "claude-opus-4-0": anthropic(15, 75),
    "claude-opus-4": anthropic(15, 75),
    "claude-sonnet-5-5": anthropic(3, 15),
    "claude-sonnet-5": anthropic(3, 15),
    "claude-sonnet-4-6": anthropic(3, 15),
    "claude-sonnet-4-5": anthropic(3, 15),
    "claude-sonnet-4-0": anthropic(3, 15),
    "claude-sonnet-4": anthropic(3, 15),
    "claude-3-7-sonnet": anthropic(3, 15),
    "claude-haiku-4-5": anthropic(1, 5),
    "claude-3-5-haiku": anthropic(0.8, 4),
  },
  openai: {
    "gpt-5.1": cachedInput(1.25, 10, 0.125),
    "gpt-5": cachedInput(1.25, 10, 0.125),
    "gpt-5-codex": cachedInput(1.25, 10, 0.125),
    "gpt-5-mini": cachedInput(0.25, 2, 0.025),
    "gpt-5-nano": cachedInput(0.05, 0.4, 0.005),
    "gpt-4.1": cachedInput(2, 8, 0.5),
    "gpt-4.1-mini": cachedInput(0.4, 1.6, 0.1),
    "gpt-4.1-nano": cachedInput(0.1, 0.4, 0.025),
    "gpt-4o": cachedInput(2.5, 10, 1.25),
    "gpt-4o-mini": cachedInput(0.15, 0.6, 0.075),
    o3: cachedInput(2, 8, 0.5),
    "o3-mini": cachedInput(1.1, 4.4, 0.55),
    "o4-mini": cachedInput(1.1, 4.4, 0.275),
  },
  gemini: {
    "gemini-3-pro-preview": cachedInput(2, 12, 0.2),
    "gemini-3-flash-preview": cachedInput(0.5, 3, 0.05),
    "gemini-2.5-pro": cachedInput(1.25, 10, 0.125),
    "gemini-2.5-flash": cachedInput(0.3, 2.5, 0.03),
    "gemini-2.5-flash-lite": cachedInput(0.1, 0.4, 0.01),
    "gemini-2.0-flash": cachedInput(0.1, 0.4, 0.025),
  },
});

/** The catalog's price for a model id (exact, else the longest id it is a dated snapshot of). */
export function catalogPrice(family: keyof typeof MODEL_PRICES, model: string): ModelPrice | undefined {
  const prices = MODEL_PRICES[family];
  if (Object.hasOwn(prices, model)) return prices[model];
  let best: string | undefined;
  for (const id of Object.keys(prices)) {
    if (model.startsWith(`${id}-`) && (best === undefined || id.length > best.length)) best = id;
  }
  return best === undefined ? undefined : prices[best];
}

/**
 * What `usage` cost in US dollars at `price`: fresh input, output, cache reads, and cache writes at the rate
 * of their lifetime (`ttl`, the breakpoints' lifetime: the usage does not split them).
 */
export function usageCost(usage: Usage, price: ModelPrice, ttl: "5m" | "1h" = "5m"): number {
  const write = ttl === "1h" ? price.cacheWrite1h : price.cacheWrite5m;
  return (
    (usage.input_tokens * price.input +
      usage.output_tokens * price.output +
      usage.cache_read_input_tokens * price.cacheRead +
      usage.cache_creation_input_tokens * write) /
    1_000_000
  );
}
