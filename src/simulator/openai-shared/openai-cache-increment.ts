/** OpenAI caches prompt prefixes in steps of this many tokens (see PrefixCache). */
export const OPENAI_CACHE_INCREMENT = 128;
