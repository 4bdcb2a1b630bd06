import { describe, expect, it } from "vitest";
import { chunkedResponse } from "../../../test/fixtures.js";
import {
  collect,
  endMessage,
  fakeFetch,
  simpleRequest,
  streamFixture,
} from "../../../test/provider-harness.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { createOpenAIChatProvider } from "./openai-chat-provider.js";

const make = (fetch: typeof globalThis.fetch) =>
  createOpenAIChatProvider({ apiKey: "sk-test", fetch, retry: { maxRetries: 0 } });

/** A Chat Completions body from chunk objects, `[DONE]`-terminated unless told otherwise. */
function sse(chunks: unknown[], done = true): Uint8Array {
  const lines = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");
  return new TextEncoder().encode(lines + (done ? "data: [DONE]\n\n" : ""));
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-1",
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

async function run(body: Uint8Array, seedSplit?: number[]): Promise<StreamEvent[]> {
  const chunks = seedSplit ? splitAt(body, seedSplit) : [body];
  return collect(make(fakeFetch([() => chunkedResponse(chunks)])).stream(simpleRequest()));
}

function splitAt(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  for (let k = 0; i < bytes.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

describe("OpenAI Chat fixtures decode to their message under any byte split", () => {
  const cases: Array<[string, (m: ReturnType<typeof endMessage>) => void]> = [
    [
      "openai-chat-text-basic.sse",
      (m) => {
        expect(m.stop_reason).toBe("end_turn");
        expect(m.content).toHaveLength(1);
        expect(m.content[0]).toMatchObject({ type: "text" });
        expect((m.content[0] as { text: string }).text).toMatch(/^I'm unable to provide real-time weather/);
        expect(m.usage).toEqual({
          input_tokens: 14,
          output_tokens: 30,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        });
        expect(m.model).toBe("gpt-4o-2024-08-06");
      },
    ],
    [
      "openai-chat-tool-calls-parallel.sse",
      (m) => {
        expect(m.stop_reason).toBe("tool_use");
        expect(m.content).toEqual([
          {
            type: "tool_use",
            id: "call_JMW1whyEaYG438VE1OIflxA2",
            name: "GetWeatherArgs",
            input: { city: "Edinburgh", country: "GB", units: "c" },
          },
          {
            type: "tool_use",
            id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
            name: "get_stock_price",
            input: { ticker: "AAPL", exchange: "NASDAQ" },
          },
        ]);
        expect(m.usage?.output_tokens).toBe(60);
      },
    ],
    [
      "openai-chat-tool-call-obfuscation.sse",
      (m) => {
        expect(m.stop_reason).toBe("tool_use");
        expect(m.content).toEqual([
          {
            type: "tool_use",
            id: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
            name: "get_capital",
            input: { country: "UK" },
          },
        ]);
        expect(m.usage).toMatchObject({ input_tokens: 53, output_tokens: 15, cache_read_input_tokens: 0 });
      },
    ],
    [
      "openai-chat-length-cut.sse",
      (m) => {
        expect(m.stop_reason).toBe("max_tokens");
        expect(m.content).toEqual([{ type: "text", text: '{"' }]);
      },
    ],
  ];
  for (const [name, check] of cases) {
    it(name, async () => {
      const whole = await streamFixture(make, name, simpleRequest());
      check(endMessage(whole));
      for (let seed = 1; seed <= 24; seed++) {
        expect(await streamFixture(make, name, simpleRequest(), seed)).toEqual(whole);
      }
    });
  }
});

describe("OpenAI Chat stream decoding", () => {
  it("assembles calls whose fragments interleave by index, with strings streamed live", async () => {
    const body = sse([
      chunk({ role: "assistant", content: "Two reads." }),
      chunk({
        tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "Read", arguments: "" } }],
      }),
      chunk({
        tool_calls: [
          { index: 1, id: "call_b", type: "function", function: { name: "Read", arguments: '{"pa' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"a' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'th":"b.ts"}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '.ts"}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    const events = await run(body);
    const m = endMessage(events);
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content).toEqual([
      { type: "text", text: "Two reads." },
      { type: "tool_use", id: "call_a", name: "Read", input: { path: "a.ts" } },
      { type: "tool_use", id: "call_b", name: "Read", input: { path: "b.ts" } },
    ]);
    const strings = events.flatMap((e) => (e.type === "tool-input-delta" && e.id === "1" ? e.strings : []));
    expect(strings.map((s) => s.text).join("")).toBe("a.ts");
    // The text block is closed before the first call starts.
    const types = events.map((e) => e.type);
    expect(types.indexOf("text-end")).toBeLessThan(types.indexOf("tool-input-start"));
    for (let n = 1; n <= 7; n++) expect(await run(body, [n, n + 3])).toEqual(events);
  });

  it("turns reasoning_content and reasoning deltas into a thinking block before the text", async () => {
    for (const field of ["reasoning_content", "reasoning"]) {
      const m = endMessage(
        await run(
          sse([
            chunk({ role: "assistant", [field]: "Think" }),
            chunk({ [field]: "ing." }),
            chunk({ content: "Answer." }),
            chunk({}, "stop"),
          ]),
        ),
      );
      expect(m.content).toEqual([
        { type: "thinking", thinking: "Thinking." },
        { type: "text", text: "Answer." },
      ]);
      expect(m.stop_reason).toBe("end_turn");
    }
  });

  it("maps a refusal delta and content_filter to refusal", async () => {
    const refusal = endMessage(
      await run(sse([chunk({ refusal: "I can't help with that." }), chunk({}, "stop")])),
    );
    expect(refusal.stop_reason).toBe("refusal");
    expect(refusal.content).toEqual([{ type: "text", text: "I can't help with that." }]);
    const filtered = endMessage(await run(sse([chunk({ content: "Partial" }), chunk({}, "content_filter")])));
    expect(filtered.stop_reason).toBe("refusal");
  });

  it("says tool_use when a server finishes with stop after tool calls", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "Ls", arguments: "{}" } }] }),
          chunk({}, "stop"),
        ]),
      ),
    );
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content).toEqual([{ type: "tool_use", id: "c1", name: "Ls", input: {} }]);
  });

  it("starts a new call when a server reuses an index (or omits it) with a new id, as Ollama does", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "Read", arguments: '{"path"' } }] }),
          chunk({ tool_calls: [{ index: 0, id: "c1", function: { arguments: ':"a"}' } }] }),
          chunk({
            tool_calls: [{ index: 0, id: "c2", function: { name: "Read", arguments: '{"path":"b"}' } }],
          }),
          chunk({ tool_calls: [{ id: "c3", function: { name: "Ls", arguments: "{}" } }] }),
          chunk({}, "tool_calls"),
        ]),
        [7],
      ),
    );
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content).toEqual([
      { type: "tool_use", id: "c1", name: "Read", input: { path: "a" } },
      { type: "tool_use", id: "c2", name: "Read", input: { path: "b" } },
      { type: "tool_use", id: "c3", name: "Ls", input: {} },
    ]);
  });

  it("gives a call without an id a fresh one, and a call without arguments {}", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk({ tool_calls: [{ index: 0, function: { name: "Now", arguments: "" } }] }),
          chunk({}, "tool_calls"),
        ]),
      ),
    );
    expect(m.content[0]).toMatchObject({ type: "tool_use", name: "Now", input: {} });
    expect((m.content[0] as { id: string }).id).toMatch(/^call_\w{24}$/);
  });

  it("marks a call cut by length as incomplete, keeping the raw text", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk({
            tool_calls: [{ index: 0, id: "c1", function: { name: "Write", arguments: '{"content":"abc' } }],
          }),
          chunk({}, "length"),
        ]),
      ),
    );
    expect(m.stop_reason).toBe("max_tokens");
    expect(m.content).toEqual([
      {
        type: "tool_use",
        id: "c1",
        name: "Write",
        input: {},
        raw_input: '{"content":"abc',
        input_status: "incomplete",
      },
    ]);
  });

  it("marks unparseable arguments invalid", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "W", arguments: '{"a": bare}' } }] }),
          chunk({}, "tool_calls"),
        ]),
      ),
    );
    expect(m.content[0]).toMatchObject({ input: {}, raw_input: '{"a": bare}', input_status: "invalid" });
  });

  it("counts cached prompt tokens apart from the input", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk({ content: "ok" }),
          chunk({}, "stop"),
          {
            id: "chatcmpl-1",
            choices: [],
            usage: {
              prompt_tokens: 1000,
              completion_tokens: 5,
              prompt_tokens_details: { cached_tokens: 800 },
            },
          },
        ]),
      ),
    );
    expect(m.usage).toEqual({
      input_tokens: 200,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 800,
    });
  });

  it("ends with an error when the stream carries an error payload", async () => {
    const m = endMessage(
      await run(
        sse(
          [
            chunk({ content: "Hel" }),
            { error: { message: "upstream overloaded", type: "invalid_request_error" } },
          ],
          false,
        ),
      ),
    );
    expect(m.stop_reason).toBe("error");
    expect(m.incomplete).toBe(true);
    expect(m.error?.message).toContain("upstream overloaded");
    expect(m.content).toEqual([{ type: "text", text: "Hel" }]);
  });

  it("ends with an error when the body stops before finish_reason, the cut call incomplete", async () => {
    const m = endMessage(
      await run(
        sse(
          [chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "R", arguments: '{"p":' } }] })],
          false,
        ),
      ),
    );
    expect(m.stop_reason).toBe("error");
    expect(m.incomplete).toBe(true);
    expect(m.error?.type).toBe("network_error");
    expect(m.content[0]).toMatchObject({ raw_input: '{"p":', input_status: "incomplete" });
  });

  it("accepts a body that ends after finish_reason without [DONE]", async () => {
    const m = endMessage(await run(sse([chunk({ content: "Hi" }), chunk({}, "stop")], false)));
    expect(m.stop_reason).toBe("end_turn");
    expect(m.error).toBeUndefined();
  });

  it("ends with a clear error on a payload that is not JSON", async () => {
    const m = endMessage(await run(new TextEncoder().encode("data: {not json\n\n")));
    expect(m.stop_reason).toBe("error");
    expect(m.error?.type).toBe("invalid_stream");
    expect(m.error?.message).toContain("{not json");
  });
});
