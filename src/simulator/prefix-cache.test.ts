import { describe, expect, it } from "vitest";
import { PrefixCache, promptText } from "./prefix-cache.js";

describe("PrefixCache", () => {
  const cache = () => new PrefixCache({ charsPerToken: 4, minCacheableTokens: 1024 });

  it("a first prompt has no hit; a prompt that extends it hits the common prefix, rounded down", () => {
    const c = cache();
    const head = "a".repeat(4 * 1500);
    expect(c.account("m", head)).toEqual({ promptTokens: 1500, cachedTokens: 0 });
    expect(c.account("m", `${head}b`)).toEqual({ promptTokens: 1501, cachedTokens: 1500 });
    expect(c.account("m", `${head}c`, 128).cachedTokens).toBe(1408);
  });

  it("no hit below the minimum, across keys, or when the prompts differ early", () => {
    const c = cache();
    c.account("m", "a".repeat(4 * 1023));
    expect(c.account("m", `${"a".repeat(4 * 1023)}zz`).cachedTokens).toBe(0);
    c.account("m", "b".repeat(8000));
    expect(c.account("other", "b".repeat(8000)).cachedTokens).toBe(0);
    expect(c.account("m", `x${"b".repeat(8000)}`).cachedTokens).toBe(0);
  });

  it("the best of all earlier prompts counts", () => {
    const c = cache();
    c.account("m", "q".repeat(5000));
    c.account("m", "q".repeat(9000));
    expect(c.account("m", `${"q".repeat(9000)}!`).cachedTokens).toBe(2250);
  });

  it("promptText keeps earlier pieces as a prefix when pieces are appended", () => {
    const one = promptText([[], { role: "user", content: "hi" }]);
    const two = promptText([[], { role: "user", content: "hi" }, { role: "assistant", content: "yo" }]);
    expect(two.startsWith(one)).toBe(true);
  });
});
