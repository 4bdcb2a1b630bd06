import { describe, expect, it } from "vitest";
import {
  collect,
  endMessage,
  fakeFetch,
  jsonResponse,
  type SeenRequest,
  simpleRequest,
} from "../../../test/provider-harness.js";
import { PIXEL, READ_TOOL, richTranscript } from "../../../test/transcript.js";
import type { Message } from "../../messages/index.js";
import { encodeGeminiRequest } from "./encode-request.js";
import { createGeminiProvider } from "./gemini-provider.js";

describe("encodeGeminiRequest", () => {
  it("encodes a transcript with calls, results, images and config", () => {
    const body = encodeGeminiRequest(
      simpleRequest({
        messages: richTranscript(),
        tools: [READ_TOOL],
        temperature: 0.5,
        stopSequences: ["END"],
        thinkingBudget: 2048,
      }),
    );
    expect(body).toEqual({
      contents: [
        {
          role: "user",
          parts: [
            { text: "What is in a.ts and this picture?" },
            { inlineData: { mimeType: "image/png", data: PIXEL } },
          ],
        },
        {
          role: "model",
          // Anthropic thinking (no Gemini signature) is dropped; the unparsed call goes back with empty args.
          parts: [
            { text: "Reading." },
            { functionCall: { name: "Read", args: { file_path: "/w/a.ts" }, id: "call_1" } },
            { functionCall: { name: "Read", args: {}, id: "call_2" } },
          ],
        },
        {
          role: "user",
          parts: [
            {
              functionResponse: { name: "Read", response: { content: "export const a = 1;" }, id: "call_1" },
            },
            {
              functionResponse: {
                name: "Read",
                response: { error: '{"INVALID_JSON":"{\\"file_path\\": /w/b.ts}"}' },
                id: "call_2",
              },
            },
            { fileData: { mimeType: "image/png", fileUri: "https://example.com/shot.png" } },
            { text: "<system-reminder>Be brief.</system-reminder>" },
          ],
        },
        { role: "model", parts: [{ text: "a.ts exports a = 1." }] },
      ],
      systemInstruction: { parts: [{ text: "You are terse." }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: "Read",
              description: "Read a file",
              parameters: {
                type: "object",
                properties: { file_path: { type: "string", description: "Absolute path" } },
                required: ["file_path"],
              },
            },
          ],
        },
      ],
      generationConfig: {
        maxOutputTokens: 1024,
        temperature: 0.5,
        stopSequences: ["END"],
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      },
    });
  });

  it("sends thoughtSignatures back on their parts and leaves synthesized ids out", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Plan", meta: { gemini: { thoughtSignature: "sig-t" } } },
          { type: "text", text: "", meta: { gemini: { thoughtSignature: "sig-x" } } },
          {
            type: "tool_use",
            id: "call_abc",
            name: "Ls",
            input: {},
            meta: { gemini: { thoughtSignature: "sig-1", syntheticId: true } },
          },
          { type: "unknown", provider: "gemini", data: { executableCode: { code: "1+1" } } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_abc", content: [{ type: "text", text: "a b" }] }],
      },
    ];
    const body = encodeGeminiRequest(simpleRequest({ messages, system: [] }));
    expect(body.systemInstruction).toBeUndefined();
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [
          { text: "Plan", thought: true, thoughtSignature: "sig-t" },
          { text: "", thoughtSignature: "sig-x" },
          { functionCall: { name: "Ls", args: {} }, thoughtSignature: "sig-1" },
          { executableCode: { code: "1+1" } },
        ],
      },
      { role: "user", parts: [{ functionResponse: { name: "Ls", response: { content: "a b" } } }] },
    ]);
  });

  it("omits parameters for a tool without any, and skips messages left empty", () => {
    const body = encodeGeminiRequest(
      simpleRequest({
        tools: [{ name: "Now", description: "Time", input_schema: { type: "object", properties: {} } }],
        messages: [
          { role: "user", content: [{ type: "text", text: "hi" }] },
          { role: "assistant", content: [{ type: "redacted_thinking", data: "x" }] },
        ],
      }),
    );
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: "Now", description: "Time" }] }]);
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: "hi" }] }]);
  });

  it("drops empty text parts without a signature (Gemini rejects a part whose data is unset), keeps signed ones", () => {
    const body = encodeGeminiRequest(
      simpleRequest({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "" },
              { type: "text", text: "hi" },
            ],
          },
          // An Anthropic turn aborted before its first character, then one with an empty text beside a call.
          { role: "assistant", content: [{ type: "text", text: "" }] },
          { role: "user", content: [{ type: "text", text: "again" }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "" },
              { type: "text", text: "", meta: { gemini: { thoughtSignature: "sig" } } },
            ],
          },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "hi" }] },
      { role: "user", parts: [{ text: "again" }] },
      { role: "model", parts: [{ text: "", thoughtSignature: "sig" }] },
    ]);
  });
});

describe("createGeminiProvider", () => {
  it("posts to {base}/v1beta/models/{model}:streamGenerateContent?alt=sse with x-goog-api-key", async () => {
    const provider = createGeminiProvider({ apiKey: "g-secret", baseURL: "http://127.0.0.1:9/" });
    const encoded = provider.encode(simpleRequest({ model: "gemini-2.5-pro" }));
    expect(encoded.url).toBe("http://127.0.0.1:9/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(encoded.headers["x-goog-api-key"]).toBe("<redacted>");
    expect(JSON.stringify(encoded)).not.toContain("g-secret");
  });

  it("ends with Gemini's typed error for an HTTP error, retrying only what can succeed", async () => {
    const seen: SeenRequest[] = [];
    const bad = jsonResponse(400, {
      error: { code: 400, message: "Invalid JSON payload received.", status: "INVALID_ARGUMENT" },
    });
    const m = endMessage(
      await collect(
        createGeminiProvider({ apiKey: "g", fetch: fakeFetch([bad], seen) }).stream(
          simpleRequest({ model: "gemini-2.5-flash" }),
        ),
      ),
    );
    expect(m.stop_reason).toBe("error");
    expect(m.error).toEqual({
      type: "INVALID_ARGUMENT",
      status: 400,
      retryable: false,
      message: "Gemini API error 400 INVALID_ARGUMENT: Invalid JSON payload received.",
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers["x-goog-api-key"]).toBe("g");

    const busy = () =>
      jsonResponse(429, {
        error: { code: 429, message: "Resource exhausted", status: "RESOURCE_EXHAUSTED" },
      });
    const events = await collect(
      createGeminiProvider({
        apiKey: "g",
        fetch: fakeFetch([busy]),
        retry: { maxRetries: 2 },
        sleep: async () => {},
      }).stream(simpleRequest()),
    );
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(endMessage(events).error?.type).toBe("RESOURCE_EXHAUSTED");
  });
});
