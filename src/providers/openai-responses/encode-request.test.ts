import { describe, expect, it } from "vitest";
import { simpleRequest } from "../../../test/provider-harness.js";
import { PIXEL, READ_TOOL, richTranscript } from "../../../test/transcript.js";
import type { Message } from "../../messages/index.js";
import { encodeResponsesRequest } from "./encode-request.js";
import { createOpenAIResponsesProvider } from "./openai-responses-provider.js";

describe("encodeResponsesRequest", () => {
  it("encodes a transcript with tool calls, results and images, statelessly", () => {
    const body = encodeResponsesRequest(simpleRequest({ messages: richTranscript(), tools: [READ_TOOL] }));
    expect(body).toEqual({
      model: "test-model",
      instructions: "You are terse.",
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "What is in a.ts and this picture?" },
            { type: "input_image", image_url: `data:image/png;base64,${PIXEL}`, detail: "auto" },
          ],
        },
        // Thinking from another provider (no reasoning item in meta) is not sent.
        { type: "message", role: "assistant", content: "Reading." },
        { type: "function_call", call_id: "call_1", name: "Read", arguments: '{"file_path":"/w/a.ts"}' },
        { type: "function_call", call_id: "call_2", name: "Read", arguments: '{"file_path": /w/b.ts}' },
        {
          type: "function_call_output",
          call_id: "call_1",
          output: [
            { type: "input_text", text: "export const a = 1;" },
            { type: "input_image", image_url: "https://example.com/shot.png", detail: "auto" },
          ],
        },
        {
          type: "function_call_output",
          call_id: "call_2",
          output: '[error] {"INVALID_JSON":"{\\"file_path\\": /w/b.ts}"}',
        },
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "<system-reminder>Be brief.</system-reminder>" }],
        },
        { type: "message", role: "assistant", content: "a.ts exports a = 1." },
      ],
      tools: [
        {
          type: "function",
          name: "Read",
          description: "Read a file",
          parameters: READ_TOOL.input_schema,
          strict: false,
        },
      ],
      stream: true,
      max_output_tokens: 1024,
      store: false,
      include: ["reasoning.encrypted_content"],
    });
  });

  it("sends reasoning items and message phases back from block meta, in order", () => {
    const reasoning = {
      id: "rs_1",
      summary: [{ type: "summary_text", text: "Plan." }],
      encrypted_content: "enc",
    };
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Plan.", meta: { "openai-responses": { reasoning } } },
          { type: "text", text: "Checking.", meta: { "openai-responses": { phase: "commentary" } } },
          { type: "tool_use", id: "call_1", name: "Ls", input: {} },
          { type: "unknown", provider: "openai-responses", data: { id: "ws_1", type: "web_search_call" } },
          { type: "unknown", provider: "gemini", data: { executableCode: {} } },
        ],
      },
    ];
    const body = encodeResponsesRequest(simpleRequest({ messages }));
    expect((body.input as unknown[]).slice(1)).toEqual([
      { ...reasoning, type: "reasoning" },
      { type: "message", role: "assistant", content: "Checking.", phase: "commentary" },
      { type: "function_call", call_id: "call_1", name: "Ls", arguments: "{}" },
      { id: "ws_1", type: "web_search_call" },
    ]);
  });

  it("configures reasoning from an effort option or a thinking budget, and merges vendor options", () => {
    expect(encodeResponsesRequest(simpleRequest(), { reasoningEffort: "minimal" }).reasoning).toEqual({
      effort: "minimal",
      summary: "auto",
    });
    expect(encodeResponsesRequest(simpleRequest({ thinkingBudget: 10_000 })).reasoning).toEqual({
      effort: "medium",
      summary: "auto",
    });
    expect(encodeResponsesRequest(simpleRequest()).reasoning).toBeUndefined();
    const stored = encodeResponsesRequest(
      simpleRequest({ providerOptions: { "openai-responses": { service_tier: "flex" } } }),
      { store: true },
    );
    expect(stored.store).toBe(true);
    expect(stored.include).toBeUndefined();
    expect(stored.service_tier).toBe("flex");
  });

  it("posts to {baseURL}/responses with the key redacted", () => {
    const encoded = createOpenAIResponsesProvider({ apiKey: "sk-secret" }).encode(simpleRequest());
    expect(encoded.url).toBe("https://api.openai.com/v1/responses");
    expect(encoded.headers.authorization).toBe("Bearer <redacted>");
  });
});
