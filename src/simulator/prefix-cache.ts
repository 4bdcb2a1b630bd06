import { estimateTokens } from "./token-estimate.js";

export interface PrefixCacheOptions {
  charsPerToken: number;
  /** The smallest hit, in tokens; a shorter common prefix counts as no hit. */
  minCacheableTokens: number;
}

/** Token accounting of one request under automatic prefix caching. */
export interface PrefixAccount {
  /** The whole prompt (OpenAI's prompt_tokens / input_tokens, Gemini's promptTokenCount). */
  promptTokens: number;
  /** The part served from the cache (cached_tokens, cachedContentTokenCount); included in promptTokens. */
  cachedTokens: number;
}

/**
 * The automatic prefix caching of OpenAI and Gemini, simply modelled: a request's cached tokens are the
 * longest common prefix of its canonical prompt text with the prompt of any earlier request under the same
 * key (protocol and model), in tokens rounded down, counted only from `minCacheableTokens` up and, when
 * `increment` is given, rounded down to a multiple of it (OpenAI caches in 128-token steps). Every accounted
 * prompt is remembered; entries do not expire (the real caches keep a prefix for minutes).
 *
 * The canonical prompt is the caller's: pieces in the order the API reads them (tools, system, messages), so
 * that a conversation that grows by appending keeps its earlier requests as its prefix.
 */
export class PrefixCache {
  private readonly prompts = new Map<string, string[]>();

  constructor(private readonly options: PrefixCacheOptions) {}

  account(key: string, prompt: string, increment = 1): PrefixAccount {
    const seen = this.prompts.get(key) ?? [];
    let common = 0;
    for (const earlier of seen) common = Math.max(common, commonPrefixLength(earlier, prompt));
    let cachedTokens = Math.floor(common / this.options.charsPerToken);
    if (cachedTokens < this.options.minCacheableTokens) cachedTokens = 0;
    cachedTokens -= cachedTokens % Math.max(1, Math.floor(increment));
    if (!seen.includes(prompt)) seen.push(prompt);
    this.prompts.set(key, seen);
    return { promptTokens: estimateTokens(prompt.length, this.options.charsPerToken), cachedTokens };
  }
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * The canonical prompt text of a request: its prompt pieces as JSON, one per line; with `replacer`, what it
 * changes (an image by its price, see `imageReplacer`).
 */
export function promptText(
  pieces: readonly unknown[],
  replacer?: (key: string, value: unknown) => unknown,
): string {
  return pieces.map((piece) => JSON.stringify(piece, replacer) ?? "null").join("\n");
}
