import { describe, expect, it } from "vitest";
import { chunkedResponse, splitBytes, wireBody } from "../../../test/fixtures.js";
import type { AssistantMessage, ContentBlock, ToolUseBlock, UnknownBlock } from "../../messages/index.js";
import { coalesceDeltas } from "../../stream/coalesce-deltas.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { createAnthropicProvider } from "./anthropic-provider.js";

const request = { model: "claude-test", system: [], tools: [], messages: [], maxTokens: 1024 };
const SPLITS = 24;

/** Streams one recorded body through the real provider, delivered in the given chunks. */
async function run(
  chunks: Uint8Array[],
  liveInput = true,
): Promise<{ events: StreamEvent[]; calls: number }> {
  let calls = 0;
  const provider = createAnthropicProvider({
    apiKey: "test",
    fetch: async () => {
      calls++;
      return chunkedResponse(chunks);
    },
    sleep: async () => {},
  });
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(request, { liveInput })) events.push(event);
  return { events, calls };
}

function endOf(events: StreamEvent[]): AssistantMessage {
  const last = events.at(-1);
  if (last?.type !== "message-end") throw new Error(`last event is ${last?.type}`);
  expect(events.filter((e) => e.type === "message-end")).toHaveLength(1);
  return last.message;
}

/** Every fixture decodes to the same events whatever the byte splits; returns the one-chunk decode. */
async function decodeEverySplit(name: string): Promise<{ message: AssistantMessage; events: StreamEvent[] }> {
  const bytes = wireBody(name);
  const whole = await run([bytes]);
  for (let seed = 1; seed <= SPLITS; seed++) {
    const split = await run(splitBytes(bytes, seed, seed % 3 === 0 ? 3 : 64));
    // Deltas of one read are merged, so their count depends on the split; their content may not.
    expect(coalesceDeltas(split.events), `${name} split with seed ${seed}`).toEqual(
      coalesceDeltas(whole.events),
    );
  }
  return { message: endOf(whole.events), events: whole.events };
}

/** An oracle independent of the decoder: the concatenated deltas of one kind at one index, read straight from the file. */
function deltasAt(name: string, index: number, field: "text" | "thinking" | "partial_json"): string {
  const text = new TextDecoder().decode(wireBody(name));
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const payload = JSON.parse(line.slice(6)) as {
      type: string;
      index?: number;
      delta?: Record<string, string>;
    };
    const value = payload.delta?.[field];
    if (payload.type === "content_block_delta" && payload.index === index && value !== undefined)
      out.push(value);
  }
  return out.join("");
}

const tool = (m: AssistantMessage, i: number) => m.content[i] as ToolUseBlock;
const unknown = (m: AssistantMessage, i: number) => m.content[i] as UnknownBlock;
const types = (content: ContentBlock[]) => content.map((b) => b.type);

describe("Anthropic recorded streams decode to the message they describe, under any byte split", () => {
  it("text-basic: one text block, end_turn, usage from message_delta", async () => {
    const { message, events } = await decodeEverySplit("anthropic-text-basic.sse");
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "2" }],
      stop_reason: "end_turn",
      usage: {
        input_tokens: 20,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      model: "claude-sonnet-4-5-20250929",
      id: "msg_018E1hg8GoVTGEKQY3ovMcSJ",
    });
    expect(events.map((e) => e.type)).toEqual([
      "message-start",
      "usage",
      "text-start",
      "text-delta",
      "text-end",
      "usage",
      "message-end",
    ]);
    expect(events[0]).toEqual({
      type: "message-start",
      model: "claude-sonnet-4-5-20250929",
      id: "msg_018E1hg8GoVTGEKQY3ovMcSJ",
    });
  });

  it("tool-use-basic: text then tool_use with input assembled from split keys and values", async () => {
    const { message, events } = await decodeEverySplit("anthropic-tool-use-basic.sse");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "text", text: "I'll check the current weather in Paris for you." },
      {
        type: "tool_use",
        id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        name: "get_weather",
        input: { location: "Paris" },
      },
    ]);
    expect(message.usage).toEqual({
      input_tokens: 377,
      output_tokens: 65,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(events).toContainEqual({
      type: "tool-input-start",
      id: "1",
      toolUseId: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
    });
    // Live string chunks: the decoded value of "location", in pieces, as it streamed.
    const live = events.flatMap((e) => (e.type === "tool-input-delta" ? e.strings : []));
    expect(live.map((c) => c.text).join("")).toBe("Paris");
    expect(live.every((c) => c.path.length === 1 && c.path[0] === "location")).toBe(true);
    const raw = events.flatMap((e) => (e.type === "tool-input-delta" ? [e.delta] : [])).join("");
    expect(raw).toBe('{"location": "Paris"}');
  });

  it("liveInput:false assembles the same message without string chunks", async () => {
    const bytes = wireBody("anthropic-tool-use-basic.sse");
    const live = endOf((await run([bytes], true)).events);
    const { events } = await run(splitBytes(bytes, 7), false);
    expect(endOf(events)).toEqual(live);
    expect(events.filter((e) => e.type === "tool-input-delta").every((e) => e.strings.length === 0)).toBe(
      true,
    );
  });

  it("tool-use-invalid-json: the bare word makes the input invalid, kept raw, never parsed leniently", async () => {
    const { message, events } = await decodeEverySplit("anthropic-tool-use-invalid-json.sse");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.incomplete).toBeUndefined();
    expect(tool(message, 1)).toEqual({
      type: "tool_use",
      id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
      input: {},
      raw_input: '{"location": "Paris", "unit": celsius}',
      input_status: "invalid",
    });
    expect(events).toContainEqual({ type: "tool-input-end", id: "1", block: tool(message, 1) });
  });

  it("tool-use-max-tokens-cut: the unclosed tool_use is incomplete with its raw text, and gets its end event", async () => {
    const name = "anthropic-tool-use-max-tokens-cut.sse";
    const { message, events } = await decodeEverySplit(name);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage?.output_tokens).toBe(124);
    expect(types(message.content)).toEqual(["text", "tool_use"]);
    const block = tool(message, 1);
    expect(block.input).toEqual({});
    expect(block.input_status).toBe("incomplete");
    expect(block.raw_input).toBe(deltasAt(name, 1, "partial_json"));
    expect(block.raw_input).toMatch(
      /^\{"filename": "taxes\.txt", "lines_of_text": \[\n"# COMPREHENSIVE TAX GUIDE/,
    );
    expect(block.raw_input?.endsWith('\n"Filing taxes')).toBe(true);
    expect(events.at(-2)).toEqual({ type: "tool-input-end", id: "1", block });
  });

  it('tool-use-no-args: an input of only "" is {}; pings anywhere are ignored', async () => {
    const { message } = await decodeEverySplit("anthropic-tool-use-no-args.json");
    expect(message.content).toEqual([
      { type: "text", text: "I'll update the issue list for you." },
      { type: "tool_use", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", input: {} },
    ]);
    expect(message.usage).toEqual({
      input_tokens: 565,
      output_tokens: 48,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it("tool-use-ping-between-deltas: a tool_use at index 0 with a ping between fragments", async () => {
    const { message } = await decodeEverySplit("anthropic-tool-use-ping-between-deltas.json");
    expect(message.model).toBe("claude-haiku-4-5-20251001");
    expect(message.content).toEqual([
      {
        type: "tool_use",
        id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
        name: "json",
        input: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      },
    ]);
  });

  it("thinking-text: thinking with its signature, then text", async () => {
    const name = "anthropic-thinking-text.sse";
    const { message, events } = await decodeEverySplit(name);
    expect(types(message.content)).toEqual(["thinking", "text"]);
    const thinking = message.content[0];
    if (thinking?.type !== "thinking") throw new Error("no thinking");
    expect(thinking.thinking).toBe(deltasAt(name, 0, "thinking"));
    expect(thinking.thinking).toMatch(/^This is a straightforward question about pedestrian safety\. /);
    expect(thinking.signature).toMatch(/^EvMCCkYICxgCKkCHP2cSuEdcJK.*vgb7wwzDvP\/UhjfQYAQ==$/);
    expect(message.content[1]).toEqual({ type: "text", text: deltasAt(name, 1, "text") });
    expect(message.usage?.output_tokens).toBe(282);
    expect(events).toContainEqual({
      type: "thinking-end",
      id: "0",
      thinking: thinking.thinking,
      signature: thinking.signature,
    });
    // The empty last thinking_delta is no event; the deltas add up to the thinking.
    const deltas = events.flatMap((e) => (e.type === "thinking-delta" ? [e.delta] : []));
    expect(deltas.every((d) => d.length > 0)).toBe(true);
    expect(deltas.join("")).toBe(thinking.thinking);
  });

  it("redacted-thinking: whole blocks carried in content_block_start, each one event", async () => {
    const name = "anthropic-redacted-thinking.sse";
    const { message, events } = await decodeEverySplit(name);
    expect(types(message.content)).toEqual(["redacted_thinking", "redacted_thinking", "text"]);
    const first = message.content[0];
    expect(first?.type === "redacted_thinking" && first.data.startsWith("EqkECkYIBxgCKkA8AZ4noDfV5VcO")).toBe(
      true,
    );
    const second = message.content[1];
    expect(second?.type === "redacted_thinking" && second.data.endsWith("yRYdZ1J0GAE=")).toBe(true);
    expect(events.filter((e) => e.type === "block").map((e) => e.id)).toEqual(["0", "1"]);
    expect(message.content[2]).toEqual({ type: "text", text: deltasAt(name, 2, "text") });
    expect(message.usage?.output_tokens).toBe(189);
  });

  it("cache-read-compaction: message_delta usage overwrites, compaction kept as unknown, emoji intact", async () => {
    const name = "anthropic-cache-read-compaction.sse";
    const { message, events } = await decodeEverySplit(name);
    // message_start said cache_read 55096; the cumulative numbers of message_delta replace it.
    expect(events.find((e) => e.type === "usage")).toEqual({
      type: "usage",
      usage: {
        input_tokens: 100,
        output_tokens: expect.any(Number),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 55096,
      },
    });
    expect(message.usage).toEqual({
      input_tokens: 181,
      output_tokens: 8,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(types(message.content)).toEqual(["unknown", "text"]);
    const compaction = unknown(message, 0);
    expect(compaction.provider).toBe("anthropic");
    expect(compaction.data.type).toBe("compaction");
    expect(compaction.data.content).toBe(deltasAt(name, 0, "content" as "text"));
    expect(String(compaction.data.content)).toMatch(/^The user provided a very long context/);
    expect(message.content[1]).toEqual({ type: "text", text: "Hello! 👋" });
    expect(message.stop_reason).toBe("end_turn");
  });

  it("server-tool-prompt-cache: cache numbers overwritten (3337 / 6289), server tools kept verbatim", async () => {
    const name = "anthropic-server-tool-prompt-cache.json";
    const { message } = await decodeEverySplit(name);
    expect(message.usage).toEqual({
      input_tokens: 6,
      output_tokens: 198,
      cache_creation_input_tokens: 3337,
      cache_read_input_tokens: 6289,
    });
    expect(types(message.content)).toEqual(["unknown", "unknown", "unknown", "unknown", "text"]);
    expect(unknown(message, 0).data).toEqual({
      type: "server_tool_use",
      id: "srvtoolu_011fxGj786xCAh2kPk9GMxQw",
      name: "bash_code_execution",
      input: { command: 'for n in $(seq 1 12); do echo "$n: $((n*n))"; done' },
    });
    expect(unknown(message, 1).data).toMatchObject({
      type: "bash_code_execution_tool_result",
      tool_use_id: "srvtoolu_011fxGj786xCAh2kPk9GMxQw",
      content: { type: "bash_code_execution_result", return_code: 0, stderr: "" },
    });
    expect(String((unknown(message, 2).data.input as { command: string }).command)).toMatch(
      /echo "Sum: \$sum"$/,
    );
    expect(message.content[4]).toEqual({
      type: "text",
      text: "The sum of the squares of the numbers 1 through 12 is **650**.",
    });
    expect(message.meta?.container).toEqual({
      id: "container_01Qh1LG5zm6onKQjYrHnhrvi",
      expires_at: "2026-07-30T18:54:08.960841Z",
    });
  });

  it("error-overloaded-midstream: after content, the message ends incomplete with the error, not retried", async () => {
    const bytes = wireBody("anthropic-error-overloaded-midstream.sse");
    const whole = await run([bytes]);
    for (let seed = 1; seed <= SPLITS; seed++) {
      expect(coalesceDeltas((await run(splitBytes(bytes, seed))).events)).toEqual(
        coalesceDeltas(whole.events),
      );
    }
    expect(whole.calls).toBe(1);
    expect(whole.events.some((e) => e.type === "retry")).toBe(false);
    const message = endOf(whole.events);
    expect(message.stop_reason).toBe("error");
    expect(message.incomplete).toBe(true);
    expect(message.error).toEqual({
      type: "overloaded_error",
      message: "Anthropic API error overloaded_error: Overloaded",
      retryable: true,
    });
    expect(message.content[0]).toEqual({
      type: "text",
      text: "I'll check the current weather in Paris for you.",
    });
    expect(tool(message, 1)).toEqual({
      type: "tool_use",
      id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
      input: {},
      raw_input: '{"location": "P',
      input_status: "incomplete",
    });
  });
});
