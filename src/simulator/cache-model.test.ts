import { afterEach, describe, expect, it } from "vitest";
import { messagesBody, postMessages, readJson, readSse } from "../../test/support/test-http.js";
import { CACHE_LOOKBACK_BLOCKS, type CacheBlock, CacheModel } from "./cache-model.js";
import { imageStandIn } from "./image-weight.js";
import { startSimulator } from "./server.js";
import type { SimUsage, Simulator } from "./types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const cc = { type: "ephemeral" };
const SYSTEM = "You are a careful coding agent. ".repeat(20);
const reply = { content: [{ type: "text" as const, text: "ok" }] };

/** A conversation of n user turns, the breakpoint on the newest user message (as clients do). */
function conversation(n: number, system = SYSTEM) {
  const messages: unknown[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) messages.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
    const block: Record<string, unknown> = { type: "text", text: `question ${i + 1}: ${"x".repeat(40)}` };
    if (i === n - 1) block.cache_control = cc;
    messages.push({ role: "user", content: [block] });
  }
  return messagesBody({ system: [{ type: "text", text: system, cache_control: cc }], messages });
}

async function usageOf(body: unknown): Promise<SimUsage> {
  const res = await postMessages(sim!.url, body);
  expect(res.status).toBe(200);
  return (await readJson(res)).usage;
}

const total = (u: SimUsage) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

describe("prompt cache over HTTP", () => {
  it("each turn that extends the previous request reads its prefix", async () => {
    sim = await startSimulator({ script: Array(4).fill(reply), minCacheableTokens: 50 });
    const u1 = await usageOf(conversation(1));
    expect(u1.cache_read_input_tokens).toBe(0);
    expect(u1.cache_creation_input_tokens).toBeGreaterThan(0);
    let previous = u1;
    for (const n of [2, 3, 4]) {
      const u = await usageOf(conversation(n));
      expect(u.cache_read_input_tokens).toBe(
        previous.cache_read_input_tokens + previous.cache_creation_input_tokens,
      );
      expect(u.cache_creation_input_tokens).toBeGreaterThan(0);
      expect(total(u)).toBeGreaterThan(total(previous));
      previous = u;
    }
    expect(previous).toMatchObject(sim.requests.at(-1)?.usage ?? {});
  });

  it("reports the same usage in message_start, message_delta and the log", async () => {
    sim = await startSimulator({ script: [reply, reply], minCacheableTokens: 50 });
    await usageOf(conversation(1));
    const events = await readSse(await postMessages(sim.url, { ...conversation(2), stream: true }));
    const start = events[0]?.data.message.usage;
    const delta = events.find((e) => e.event === "message_delta")?.data.usage;
    expect(start.cache_read_input_tokens).toBeGreaterThan(0);
    for (const key of ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const) {
      expect(delta[key]).toBe(start[key]);
      expect(sim.requests[1]?.usage?.[key]).toBe(start[key]);
    }
    expect(start.cache_creation).toEqual({
      ephemeral_5m_input_tokens: start.cache_creation_input_tokens,
      ephemeral_1h_input_tokens: 0,
    });
  });

  it("changing system[0] breaks the prefix: no read", async () => {
    sim = await startSimulator({ script: Array(2).fill(reply), minCacheableTokens: 50 });
    await usageOf(conversation(1));
    const u = await usageOf(conversation(2, `${SYSTEM}!`));
    expect(u.cache_read_input_tokens).toBe(0);
    expect(u.cache_creation_input_tokens).toBe(total(u) - u.input_tokens);
  });

  it("another model does not share the cache", async () => {
    sim = await startSimulator({ script: Array(2).fill(reply), minCacheableTokens: 50 });
    await usageOf(conversation(1));
    const u = await usageOf({ ...conversation(2), model: "claude-other" });
    expect(u.cache_read_input_tokens).toBe(0);
  });

  it("five breakpoints are a 400 and nothing is cached", async () => {
    sim = await startSimulator({ script: [reply], minCacheableTokens: 1 });
    const body = conversation(3);
    const messages = body.messages as { content: Record<string, unknown>[] }[];
    for (const m of messages.slice(0, 3)) m.content[0]!.cache_control = cc;
    const res = await postMessages(sim.url, body);
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
    expect((await usageOf(conversation(3))).cache_read_input_tokens).toBe(0);
  });

  it("entries expire after 5 minutes, and a hit refreshes the TTL (injected clock)", async () => {
    let now = 1_000_000;
    sim = await startSimulator({ script: Array(5).fill(reply), minCacheableTokens: 50, now: () => now });
    const body = conversation(1);
    const first = await usageOf(body);
    now += 4 * 60_000;
    expect((await usageOf(body)).cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    now += 4 * 60_000; // 8 minutes after the write, 4 after the refreshing hit
    expect((await usageOf(body)).cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    now += 5 * 60_000 + 1;
    const expired = await usageOf(body);
    expect(expired.cache_read_input_tokens).toBe(0);
    expect(expired.cache_creation_input_tokens).toBe(first.cache_creation_input_tokens);
  });

  it("a 1h breakpoint outlives 5 minutes and is reported as ephemeral_1h", async () => {
    let now = 0;
    sim = await startSimulator({ script: Array(2).fill(reply), minCacheableTokens: 50, now: () => now });
    const body = messagesBody({
      system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral", ttl: "1h" } }],
    });
    const first = await usageOf(body);
    expect(first.cache_creation.ephemeral_1h_input_tokens).toBe(first.cache_creation_input_tokens);
    now += 50 * 60_000;
    expect((await usageOf(body)).cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
  });

  it("a prefix below minCacheableTokens is not cached", async () => {
    sim = await startSimulator({ script: Array(2).fill(reply) }); // default minimum: 1024 tokens
    const body = conversation(1);
    const first = await usageOf(body);
    expect(first.cache_creation_input_tokens).toBe(0);
    const again = await usageOf(body);
    expect(again.cache_read_input_tokens).toBe(0);
    expect(again.input_tokens).toBe(first.input_tokens);
  });

  it("moving the cache_control marker does not change the cached bytes", async () => {
    sim = await startSimulator({ script: Array(2).fill(reply), minCacheableTokens: 50 });
    const first = await usageOf(conversation(2));
    // Same transcript, one more turn; the marker left message 2 (where it was) for the new newest message.
    const u = await usageOf(conversation(3));
    expect(u.cache_read_input_tokens).toBe(first.cache_read_input_tokens + first.cache_creation_input_tokens);
  });
});

describe("CacheModel", () => {
  const blocks = (n: number, breakpoints: number[], tag = "b"): CacheBlock[] =>
    Array.from({ length: n }, (_, i) => ({
      key: `${tag}${i}`.padEnd(40, "."),
      ...(breakpoints.includes(i) ? { breakpoint: "5m" as const } : {}),
    }));
  const model = () => new CacheModel({ charsPerToken: 4, minCacheableTokens: 1, now: () => 0 });

  it(`finds a cached prefix up to ${CACHE_LOOKBACK_BLOCKS} blocks before a breakpoint, not further`, () => {
    const near = model();
    near.account("m", blocks(10, [9]));
    expect(
      near.account("m", blocks(10 + CACHE_LOOKBACK_BLOCKS, [9 + CACHE_LOOKBACK_BLOCKS])).readTokens,
    ).toBe(100);
    const far = model();
    far.account("m", blocks(10, [9]));
    expect(
      far.account("m", blocks(11 + CACHE_LOOKBACK_BLOCKS, [10 + CACHE_LOOKBACK_BLOCKS])).readTokens,
    ).toBe(0);
  });

  it("an earlier breakpoint still reaches an entry the last one cannot", () => {
    const m = model();
    m.account("m", blocks(10, [9]));
    const u = m.account("m", blocks(40, [12, 39]));
    expect(u.readTokens).toBe(100);
    expect(u.writeTokens).toBe(400 - 100);
    expect(u.inputTokens).toBe(0);
  });

  it("splits the write by the TTL of the breakpoint that wrote each part", () => {
    const m = model();
    const bs = blocks(6, []);
    bs[1] = { ...bs[1]!, breakpoint: "1h" };
    bs[3] = { ...bs[3]!, breakpoint: "5m" };
    const u = m.account("m", bs);
    expect(u).toEqual({
      readTokens: 0,
      writeTokens: 40,
      write1hTokens: 20,
      write5mTokens: 20,
      inputTokens: 20,
    });
  });

  it("a different block anywhere in the prefix is a miss", () => {
    const m = model();
    m.account("m", blocks(5, [4]));
    const changed = blocks(5, [4]);
    changed[0] = { key: "other".padEnd(40, ".") };
    expect(m.account("m", changed).readTokens).toBe(0);
  });
});

describe("images are counted by what the provider charges, not by their base64", () => {
  it("a 3 MB PNG of 2880 × 1800 counts about 1,533 tokens on Anthropic's rule, and two different images differ", () => {
    const png = (seed: number) => {
      const head = Buffer.from([
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
      ]);
      const size = Buffer.alloc(8);
      size.writeUInt32BE(2880, 0);
      size.writeUInt32BE(1800, 4);
      return Buffer.concat([head, size, Buffer.alloc(3 * 1024 * 1024, seed)]).toString("base64");
    };
    const a = imageStandIn(png(1), "anthropic", 4) as string;
    expect(Math.ceil(a.length / 4)).toBeGreaterThan(1_500);
    expect(Math.ceil(a.length / 4)).toBeLessThan(1_600);
    expect(imageStandIn(png(2), "anthropic", 4)).not.toBe(a);
    expect(imageStandIn(`data:image/png;base64,${png(1)}`, "openai", 4)?.length).toBeLessThan(4 * 1_200);
    expect(imageStandIn("just a long string ".repeat(10), "anthropic", 4)).toBeUndefined();
  });
});
