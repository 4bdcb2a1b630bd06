import { describe, expect, it } from "vitest";
import { chunkedResponse } from "../../../test/fixtures.js";
import {
  collect,
  endMessage,
  fakeFetch,
  simpleRequest,
  streamFixture,
} from "../../../test/provider-harness.js";
import type { ThinkingBlock } from "../../messages/index.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { createOpenAIResponsesProvider } from "./openai-responses-provider.js";

const make = (fetch: typeof globalThis.fetch) =>
  createOpenAIResponsesProvider({ apiKey: "sk-test", fetch, retry: { maxRetries: 0 } });

function sse(events: Array<Record<string, unknown>>): Uint8Array {
  return new TextEncoder().encode(
    events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""),
  );
}

async function run(body: Uint8Array): Promise<StreamEvent[]> {
  return collect(make(fakeFetch([() => chunkedResponse([body])])).stream(simpleRequest()));
}

const created = {
  type: "response.created",
  response: { id: "resp_1", model: "gpt-5", status: "in_progress" },
};
const completed = (usage?: unknown) => ({
  type: "response.completed",
  response: { id: "resp_1", status: "completed", usage },
});

describe("OpenAI Responses fixtures decode to their message under any byte split", () => {
  const cases: Array<[string, (m: ReturnType<typeof endMessage>) => void]> = [
    [
      "openai-responses-function-call.sse",
      (m) => {
        expect(m.stop_reason).toBe("tool_use");
        expect(m.content).toHaveLength(2);
        expect(m.content[0]).toMatchObject({
          type: "thinking",
          thinking: "",
          meta: {
            "openai-responses": {
              reasoning: { id: "rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405", summary: [] },
            },
          },
        });
        // The encrypted content of the finished item, not the placeholder of `added`.
        const meta = (m.content[0] as ThinkingBlock).meta?.["openai-responses"] as {
          reasoning: { encrypted_content: string };
        };
        const reasoning = meta.reasoning;
        expect(reasoning.encrypted_content.startsWith("gAAAAABoyXvxI6jw")).toBe(true);
        expect(m.content[1]).toEqual({
          type: "tool_use",
          id: "call_CWXgs68YprAjp6t0371hiPOI",
          name: "final_result",
          input: { result: 6666 },
        });
        expect(m.usage).toEqual({
          input_tokens: 53,
          output_tokens: 469,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        });
        expect(m.model).toBe("gpt-5-2025-08-07");
      },
    ],
    [
      "openai-responses-text-then-function-call.sse",
      (m) => {
        expect(m.stop_reason).toBe("tool_use");
        expect(m.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
        expect(m.content[1]).toEqual({
          type: "text",
          text: "I’ll check the capital lookup tool for “PotatoLand.”",
          meta: { "openai-responses": { phase: "commentary" } },
        });
        expect(m.content[2]).toEqual({
          type: "tool_use",
          id: "call_LabG58Uhrq9kZvR52BYKjToD",
          name: "get_capital",
          input: { country: "PotatoLand" },
        });
      },
    ],
    [
      "openai-responses-error.json",
      (m) => {
        expect(m.stop_reason).toBe("error");
        expect(m.error?.type).toBe("insufficient_quota");
        expect(m.error?.message).toContain("You exceeded your current quota");
        expect(m.error?.retryable).toBe(false);
        expect(m.content).toEqual([]);
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

describe("OpenAI Responses stream decoding", () => {
  it("streams reasoning summary parts as thinking, separated by a blank line", async () => {
    const m = endMessage(
      await run(
        sse([
          created,
          {
            type: "response.output_item.added",
            output_index: 0,
            item: { id: "rs_1", type: "reasoning", summary: [] },
          },
          {
            type: "response.reasoning_summary_text.delta",
            item_id: "rs_1",
            summary_index: 0,
            delta: "First.",
          },
          {
            type: "response.reasoning_summary_text.delta",
            item_id: "rs_1",
            summary_index: 1,
            delta: "Second.",
          },
          {
            type: "response.output_item.done",
            item: {
              id: "rs_1",
              type: "reasoning",
              encrypted_content: "enc",
              summary: [
                { type: "summary_text", text: "First." },
                { type: "summary_text", text: "Second." },
              ],
            },
          },
          { type: "response.output_item.added", item: { id: "msg_1", type: "message", role: "assistant" } },
          { type: "response.output_text.delta", item_id: "msg_1", content_index: 0, delta: "Done." },
          { type: "response.output_item.done", item: { id: "msg_1", type: "message" } },
          completed({ input_tokens: 100, input_tokens_details: { cached_tokens: 60 }, output_tokens: 7 }),
        ]),
      ),
    );
    expect(m.stop_reason).toBe("end_turn");
    expect(m.content[0]).toMatchObject({ type: "thinking", thinking: "First.\n\nSecond." });
    expect(m.content[1]).toEqual({ type: "text", text: "Done." });
    expect(m.usage).toEqual({
      input_tokens: 40,
      output_tokens: 7,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 60,
    });
  });

  it("maps response.incomplete (max_output_tokens) to max_tokens with the cut call incomplete", async () => {
    const m = endMessage(
      await run(
        sse([
          created,
          {
            type: "response.output_item.added",
            item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "Write", arguments: "" },
          },
          { type: "response.function_call_arguments.delta", item_id: "fc_1", delta: '{"content":"lo' },
          {
            type: "response.incomplete",
            response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
          },
        ]),
      ),
    );
    expect(m.stop_reason).toBe("max_tokens");
    expect(m.content).toEqual([
      {
        type: "tool_use",
        id: "call_1",
        name: "Write",
        input: {},
        raw_input: '{"content":"lo',
        input_status: "incomplete",
      },
    ]);
  });

  it("takes .done's full arguments when they differ from the streamed fragments", async () => {
    const m = endMessage(
      await run(
        sse([
          created,
          {
            type: "response.output_item.added",
            item: { id: "fc_1", type: "function_call", call_id: "c", name: "R" },
          },
          { type: "response.function_call_arguments.delta", item_id: "fc_1", delta: '{"p":"a' },
          { type: "response.function_call_arguments.done", item_id: "fc_1", arguments: '{"p":"ab"}' },
          completed(),
        ]),
      ),
    );
    expect(m.content).toEqual([{ type: "tool_use", id: "c", name: "R", input: { p: "ab" } }]);
  });

  it("keeps a call seen only whole, and an unknown item verbatim", async () => {
    const search = { id: "ws_1", type: "web_search_call", status: "completed" };
    const m = endMessage(
      await run(
        sse([
          created,
          { type: "response.output_item.done", item: search },
          {
            type: "response.output_item.done",
            item: { id: "fc_9", type: "function_call", call_id: "c9", name: "Ls", arguments: "{}" },
          },
          completed(),
        ]),
      ),
    );
    expect(m.content).toEqual([
      { type: "unknown", provider: "openai-responses", data: search },
      { type: "tool_use", id: "c9", name: "Ls", input: {} },
    ]);
    expect(m.stop_reason).toBe("tool_use");
  });

  it("ends response.failed as an error with its message", async () => {
    const m = endMessage(
      await run(
        sse([
          created,
          {
            type: "response.failed",
            response: { status: "failed", error: { code: "server_error", message: "boom" } },
          },
        ]),
      ),
    );
    expect(m.stop_reason).toBe("error");
    expect(m.error).toMatchObject({ type: "server_error", retryable: true });
    expect(m.error?.message).toContain("boom");
  });

  it("maps a refusal to stop_reason refusal", async () => {
    const m = endMessage(
      await run(
        sse([
          created,
          { type: "response.output_item.added", item: { id: "msg_1", type: "message" } },
          { type: "response.refusal.delta", item_id: "msg_1", delta: "I can't." },
          completed(),
        ]),
      ),
    );
    expect(m.stop_reason).toBe("refusal");
    expect(m.content).toEqual([{ type: "text", text: "I can't." }]);
  });

  it("ends a body cut before response.completed as an incomplete error", async () => {
    const m = endMessage(
      await run(sse([created, { type: "response.output_text.delta", item_id: "m", delta: "Hal" }])),
    );
    expect(m.stop_reason).toBe("error");
    expect(m.incomplete).toBe(true);
    expect(m.content).toEqual([{ type: "text", text: "Hal" }]);
  });
});
