import { createHash } from "node:crypto";
import { estimateTokens } from "./token-estimate.js";

/** One unit of the canonical prompt (a tool, a system block, a message content block). */
export interface CacheBlock {
  /** The canonical bytes of the block, without its cache_control marker. */
  key: string;
  /** Set when the block carries cache_control: the entry's time to live. */
  breakpoint?: "5m" | "1h";
}

/** Token accounting of one request. */
export interface CacheAccount {
  /** Tokens of the longest cached prefix that was hit. */
  readTokens: number;
  /** Tokens from the end of the read part to the last written breakpoint. */
  writeTokens: number;
  /** writeTokens split by the TTL of the breakpoint that wrote each part. */
  write5mTokens: number;
  write1hTokens: number;
  /** The rest of the prompt. */
  inputTokens: number;
}

export interface CacheModelOptions {
  charsPerToken: number;
  minCacheableTokens: number;
  now: () => number;
}

/** How many block boundaries before a breakpoint are also checked for a hit (Anthropic's lookback). */
export const CACHE_LOOKBACK_BLOCKS = 20;
const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

/**
 * Prompt-cache accounting by Anthropic's rules. The prompt is a sequence of blocks in canonical order; a
 * prefix is identified by the model and the exact bytes of its blocks (a chained hash per boundary).
 *
 * Read: the longest prefix that ends at a breakpoint, or at one of the CACHE_LOOKBACK_BLOCKS boundaries before
 * a breakpoint, and is cached and unexpired; a hit refreshes that entry's TTL.
 * Write: every breakpoint whose prefix has at least minCacheableTokens is cached (or refreshed).
 * Tokens are estimated over cumulative characters, so read + write + input = the whole prompt.
 */
export class CacheModel {
  private readonly entries = new Map<string, { expiresAt: number; ttlMs: number }>();

  constructor(private readonly options: CacheModelOptions) {}

  account(model: string, blocks: readonly CacheBlock[]): CacheAccount {
    const now = this.options.now();
    const hashes: string[] = []; // hashes[p] identifies the prefix of p blocks
    const tokens: number[] = []; // tokens[p] estimates the prefix of p blocks
    let hash = createHash("sha256").update(`model:${model}`).digest("hex");
    let chars = 0;
    hashes.push(hash);
    tokens.push(0);
    for (const block of blocks) {
      hash = createHash("sha256").update(hash).update("\u0000").update(block.key).digest("hex");
      chars += block.key.length;
      hashes.push(hash);
      tokens.push(estimateTokens(chars, this.options.charsPerToken));
    }
    const total = tokens[blocks.length] ?? 0;

    const breakpoints: { end: number; ttl: "5m" | "1h" }[] = [];
    for (const [i, block] of blocks.entries()) {
      if (block.breakpoint) breakpoints.push({ end: i + 1, ttl: block.breakpoint });
    }

    let readEnd = 0;
    for (const { end } of breakpoints) {
      for (let p = end; p >= Math.max(1, end - CACHE_LOOKBACK_BLOCKS); p--) {
        if (p <= readEnd) break;
        const entry = this.entries.get(hashes[p]!);
        if (entry && entry.expiresAt > now) {
          readEnd = p;
          break;
        }
      }
    }
    if (readEnd > 0) {
      const hit = this.entries.get(hashes[readEnd]!)!;
      hit.expiresAt = now + hit.ttlMs;
    }

    let writeEnd = readEnd;
    let write5m = 0;
    let write1h = 0;
    for (const { end, ttl } of breakpoints) {
      if (tokens[end]! < this.options.minCacheableTokens) continue;
      const key = hashes[end]!;
      const ttlMs = Math.max(TTL_MS[ttl], this.entries.get(key)?.ttlMs ?? 0);
      this.entries.set(key, { expiresAt: now + ttlMs, ttlMs });
      if (end > writeEnd) {
        const part = tokens[end]! - tokens[writeEnd]!;
        if (ttl === "1h") write1h += part;
        else write5m += part;
        writeEnd = end;
      }
    }
    const readTokens = tokens[readEnd]!;
    const writeTokens = tokens[writeEnd]! - readTokens;
    return {
      readTokens,
      writeTokens,
      write5mTokens: write5m,
      write1hTokens: write1h,
      inputTokens: total - tokens[writeEnd]!,
    };
  }
}
