import { afterEach, describe, expect, it } from "vitest";
import { wireBody } from "../../test/fixtures.js";
import {
  messagesBody,
  postMessages,
  readJson,
  readSse,
  type SseEvent,
} from "../../test/support/test-http.js";
import { startSimulator } from "./server.js";
import type { SimBlock, Simulator } from "./types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Parses a recorded body with the same reader the other tests use. */
async function recorded(name: string): Promise<SseEvent[]> {
  return readSse(new Response(wireBody(name)));
}

/** The scripted turn a recording describes (text, thinking, redacted_thinking, tool_use). */
function turnOf(events: SseEvent[]): SimBlock[] {
  const blocks: SimBlock[] = [];
  const parts: string[] = [];
  for (const { event, data } of events) {
    if (event === "content_block_start") {
      const b = data.content_block;
      parts[data.index] = "";
      if (b.type === "tool_use")
        blocks[data.index] = { type: "tool_use", id: b.id, name: b.name, rawInput: "" };
      else if (b.type === "redacted_thinking")
        blocks[data.index] = { type: "redacted_thinking", data: b.data };
      else if (b.type === "thinking") blocks[data.index] = { type: "thinking", thinking: "", signature: "" };
      else blocks[data.index] = { type: "text", text: "" };
    } else if (event === "content_block_delta") {
      const d = data.delta;
      const block = blocks[data.index]!;
      if (d.type === "signature_delta" && block.type === "thinking") block.signature = d.signature;
      else parts[data.index] += d.text ?? d.thinking ?? d.partial_json ?? "";
    }
  }
  return blocks.map((block, i) => {
    const part = parts[i] ?? "";
    if (block.type === "text") return { ...block, text: part };
    if (block.type === "thinking") return { ...block, thinking: part };
    if (block.type === "tool_use") return { ...block, rawInput: part };
    return block;
  });
}

/** Event names with runs of deltas for one block collapsed; pings (keep-alives, placed by timing) dropped. */
function shape(events: SseEvent[]): string[] {
  const out: string[] = [];
  for (const { event, data } of events) {
    if (event === "ping") continue;
    const name = event === "content_block_delta" ? `delta:${data.delta.type}:${data.index}` : event;
    if (out.at(-1) !== name) out.push(name);
  }
  return out;
}

/** The nested key structure of each event's data (values ignored), for the events both sides share. */
function keys(value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return typeof value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !["service_tier", "inference_geo", "cache_creation", "caller"].includes(k))
      .map(([k, v]) => [k, keys(v)])
      .sort(),
  );
}

describe("the simulator's stream has the shape of recorded API streams", () => {
  for (const name of [
    "anthropic-tool-use-basic.sse",
    "anthropic-thinking-text.sse",
    "anthropic-redacted-thinking.sse",
  ]) {
    it(name, async () => {
      const real = await recorded(name);
      const content = turnOf(real);
      const stop = real.find((e) => e.event === "message_delta")?.data.delta.stop_reason;
      sim = await startSimulator({ script: [{ content, stopReason: stop }], textChunk: 5, inputChunk: 7 });
      const tools = content.some((b) => b.type === "tool_use")
        ? [{ name: "get_weather", input_schema: { type: "object" } }]
        : undefined;
      const ours = await readSse(
        await postMessages(sim.url, messagesBody({ stream: true, ...(tools ? { tools } : {}) })),
      );
      expect(shape(ours)).toEqual(shape(real));
      expect(turnOf(ours)).toEqual(content);
      const realStart = real.find((e) => e.event === "content_block_start")?.data;
      const ourStart = ours.find((e) => e.event === "content_block_start")?.data;
      expect(keys(ourStart)).toEqual(keys(realStart));
      expect(keys(ours[0]?.data)).toEqual(keys(real[0]?.data));
    });
  }
});

describe("count_tokens", () => {
  it("returns the prompt's estimate without consuming a turn or touching the cache", async () => {
    sim = await startSimulator({
      script: [{ content: [{ type: "text", text: "ok" }] }],
      minCacheableTokens: 1,
    });
    const body = messagesBody({
      system: [{ type: "text", text: "x".repeat(400), cache_control: { type: "ephemeral" } }],
    });
    const { max_tokens: _omit, ...countBody } = body;
    const counted = await readJson(
      await fetch(`${sim.url}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k" },
        body: JSON.stringify(countBody),
      }),
    );
    const usage = (await readJson(await postMessages(sim.url, body))).usage;
    expect(counted.input_tokens).toBe(usage.input_tokens + usage.cache_creation_input_tokens);
    expect(usage.cache_read_input_tokens).toBe(0);
    expect(sim.requests.map((r) => [r.path, r.status])).toEqual([
      ["/v1/messages/count_tokens", 200],
      ["/v1/messages", 200],
    ]);
  });
});
