import { describe, expect, it } from "vitest";
import { chunkedResponse } from "../../../test/fixtures.js";
import {
  collect,
  endMessage,
  fakeFetch,
  simpleRequest,
  streamFixture,
} from "../../../test/provider-harness.js";
import type { ToolUseBlock } from "../../messages/index.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { createGeminiProvider } from "./gemini-provider.js";

/** A provider whose synthesized ids count from 1 in each stream, so that decodes compare equal. */
const make = (fetch: typeof globalThis.fetch) => {
  let n = 0;
  return createGeminiProvider({
    apiKey: "g-test",
    fetch,
    retry: { maxRetries: 0 },
    newId: () => `call_${++n}`,
  });
};

function sse(chunks: unknown[]): Uint8Array {
  return new TextEncoder().encode(chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(""));
}

const chunk = (parts: unknown[], finishReason?: string, extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}) }],
  modelVersion: "gemini-2.5-flash",
  ...extra,
});

async function run(body: Uint8Array): Promise<StreamEvent[]> {
  return collect(make(fakeFetch([() => chunkedResponse([body])])).stream(simpleRequest()));
}

const synthetic = { gemini: { syntheticId: true } };

describe("Gemini fixtures decode to their message under any byte split", () => {
  const cases: Array<[string, (m: ReturnType<typeof endMessage>) => void]> = [
    [
      "gemini-text.sse",
      (m) => {
        expect(m.content).toEqual([{ type: "text", text: "The temperature in Paris is 30°C.\n" }]);
        expect(m.stop_reason).toBe("end_turn");
        expect(m.usage).toEqual({
          input_tokens: 79,
          output_tokens: 12,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        });
        expect(m.model).toBe("gemini-2.0-flash");
      },
    ],
    [
      "gemini-function-call.sse",
      (m) => {
        expect(m.content).toEqual([
          {
            type: "tool_use",
            id: "call_1",
            name: "get_capital",
            input: { country: "France" },
            meta: synthetic,
          },
        ]);
        expect(m.stop_reason).toBe("tool_use");
      },
    ],
    [
      "gemini-function-call-thought-signature.sse",
      (m) => {
        expect(m.content).toHaveLength(1);
        expect(m.content[0]).toMatchObject({ type: "tool_use", name: "get_country", input: {} });
        const meta = (m.content[0] as ToolUseBlock).meta?.gemini as { thoughtSignature: string };
        expect(meta.thoughtSignature.startsWith("EpwICpkIAXLI2nxlU6gs")).toBe(true);
        expect(m.stop_reason).toBe("tool_use");
        // Thought tokens count as output.
        expect(m.usage?.output_tokens).toBe(212);
      },
    ],
    [
      "gemini-vertex-partial-args-multi-call.json",
      (m) => {
        expect(m.content.map((b) => b.type)).toEqual([
          "thinking",
          "tool_use",
          "tool_use",
          "tool_use",
          "tool_use",
        ]);
        expect((m.content[0] as { thinking: string }).thinking).toMatch(/^\*\*Processing User Requests\*\*/);
        expect(m.content[1]).toMatchObject({ type: "tool_use", id: "call_1", name: "read_theme", input: {} });
        expect(m.content.slice(2)).toEqual(
          ["A", "B", "C"].map((id, i) => ({
            type: "tool_use",
            id: `call_${i + 2}`,
            name: "read_screen",
            input: { id },
            meta: synthetic,
          })),
        );
        expect(m.stop_reason).toBe("tool_use");
        expect(m.usage).toEqual({
          input_tokens: 249,
          output_tokens: 241,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        });
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

  it("streams the partialArgs string values live, as the accumulator decodes them", async () => {
    const events = await streamFixture(make, "gemini-vertex-partial-args-multi-call.json", simpleRequest());
    const strings = events.flatMap((e) => (e.type === "tool-input-delta" ? e.strings : []));
    expect(strings).toEqual([
      { path: ["id"], text: "A" },
      { path: ["id"], text: "B" },
      { path: ["id"], text: "C" },
    ]);
  });
});

describe("Gemini stream decoding", () => {
  it("keeps several whole calls of one turn, with given ids and signatures", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk([{ text: "Thinking it over", thought: true, thoughtSignature: "sig-t" }]),
          chunk([{ text: "Two calls." }]),
          chunk([
            { functionCall: { id: "fc-1", name: "Read", args: { path: "a" } }, thoughtSignature: "sig-1" },
            { functionCall: { name: "Read", args: { path: "b" } } },
          ]),
          chunk([], "STOP", {
            usageMetadata: { promptTokenCount: 120, cachedContentTokenCount: 100, candidatesTokenCount: 9 },
          }),
        ]),
      ),
    );
    expect(m.content).toEqual([
      { type: "thinking", thinking: "Thinking it over", meta: { gemini: { thoughtSignature: "sig-t" } } },
      { type: "text", text: "Two calls." },
      {
        type: "tool_use",
        id: "fc-1",
        name: "Read",
        input: { path: "a" },
        meta: { gemini: { thoughtSignature: "sig-1" } },
      },
      { type: "tool_use", id: "call_1", name: "Read", input: { path: "b" }, meta: synthetic },
    ]);
    expect(m.stop_reason).toBe("tool_use");
    expect(m.usage).toEqual({
      input_tokens: 20,
      output_tokens: 9,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
    });
  });

  it("keeps a signature that arrives on an empty text part", async () => {
    const m = endMessage(
      await run(
        sse([chunk([{ text: "Hello" }]), chunk([{ text: "", thoughtSignature: "sig-end" }], "STOP")]),
      ),
    );
    expect(m.content).toEqual([
      { type: "text", text: "Hello", meta: { gemini: { thoughtSignature: "sig-end" } } },
    ]);
  });

  it("streams nested partialArgs into one JSON object", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk([{ functionCall: { name: "Edit", willContinue: true } }]),
          chunk([
            {
              functionCall: {
                partialArgs: [
                  { jsonPath: "$.file_path", stringValue: "/w/a.ts" },
                  { jsonPath: "$.edits[0].old", stringValue: 'say "hi', willContinue: true },
                ],
                willContinue: true,
              },
            },
          ]),
          chunk([
            {
              functionCall: {
                partialArgs: [
                  { jsonPath: "$.edits[0].old", stringValue: '"\n' },
                  { jsonPath: "$.edits[0].count", numberValue: 2 },
                  { jsonPath: "$.edits[1].old", stringValue: "x" },
                  { jsonPath: "$.dry_run", boolValue: false },
                  { jsonPath: "$['odd key']", nullValue: "NULL_VALUE" },
                ],
                willContinue: true,
              },
            },
          ]),
          chunk([{ functionCall: {} }]),
          chunk([{ text: "" }], "STOP"),
        ]),
      ),
    );
    expect(m.content).toEqual([
      {
        type: "tool_use",
        id: "call_1",
        name: "Edit",
        input: {
          file_path: "/w/a.ts",
          edits: [{ old: 'say "hi"\n', count: 2 }, { old: "x" }],
          dry_run: false,
          "odd key": null,
        },
        meta: synthetic,
      },
    ]);
  });

  it("marks a streamed call cut by MAX_TOKENS incomplete", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk([{ functionCall: { name: "Write", willContinue: true } }]),
          chunk([
            {
              functionCall: {
                partialArgs: [{ jsonPath: "$.content", stringValue: "abc", willContinue: true }],
                willContinue: true,
              },
            },
          ]),
          chunk([], "MAX_TOKENS"),
        ]),
      ),
    );
    expect(m.stop_reason).toBe("max_tokens");
    expect(m.content[0]).toMatchObject({ raw_input: '{"content":"abc', input_status: "incomplete" });
  });

  it("maps finish reasons: safety to refusal, MALFORMED_FUNCTION_CALL to a named error", async () => {
    expect(endMessage(await run(sse([chunk([{ text: "No" }], "SAFETY")]))).stop_reason).toBe("refusal");
    expect(endMessage(await run(sse([chunk([{ text: "x" }], "RECITATION")]))).stop_reason).toBe("refusal");
    const malformed = endMessage(await run(sse([chunk([], "MALFORMED_FUNCTION_CALL", {})])));
    expect(malformed.stop_reason).toBe("error");
    expect(malformed.error?.type).toBe("malformed_function_call");
    expect(malformed.error?.message).toContain("malformed function call");
  });

  it("maps a blocked prompt to refusal", async () => {
    const m = endMessage(
      await run(sse([{ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 5 } }])),
    );
    expect(m.stop_reason).toBe("refusal");
    expect(m.content).toEqual([]);
  });

  it("ends with Gemini's error when the stream carries one", async () => {
    const m = endMessage(
      await run(
        sse([
          chunk([{ text: "Par" }]),
          { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } },
        ]),
      ),
    );
    expect(m.stop_reason).toBe("error");
    expect(m.error).toMatchObject({ type: "UNAVAILABLE", retryable: true });
    expect(m.error?.message).toContain("The model is overloaded.");
    expect(m.content).toEqual([{ type: "text", text: "Par" }]);
  });

  it("ends a body cut before finishReason as an incomplete error", async () => {
    const m = endMessage(await run(sse([chunk([{ text: "Par" }])])));
    expect(m.stop_reason).toBe("error");
    expect(m.incomplete).toBe(true);
  });
});
