import { describe, expect, it } from "vitest";
import { simpleRequest } from "../../../test/provider-harness.js";
import { PIXEL, READ_TOOL, richTranscript } from "../../../test/transcript.js";
import { encodeOpenAIChatRequest } from "./encode-request.js";
import { createOpenAIChatProvider } from "./openai-chat-provider.js";
import { OPENAI_CHAT_QUIRKS, resolveQuirks } from "./quirks.js";

describe("encodeOpenAIChatRequest", () => {
  it("encodes a transcript with tool calls, results, images and thinking", () => {
    const body = encodeOpenAIChatRequest(
      simpleRequest({
        messages: richTranscript(),
        tools: [READ_TOOL],
        temperature: 0.2,
        stopSequences: ["END"],
      }),
      { quirks: OPENAI_CHAT_QUIRKS.openai },
    );
    expect(body).toEqual({
      model: "test-model",
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in a.ts and this picture?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } },
          ],
        },
        {
          role: "assistant",
          content: "Reading.",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "Read", arguments: '{"file_path":"/w/a.ts"}' },
            },
            // The exact text the model produced, not a repaired object.
            {
              id: "call_2",
              type: "function",
              function: { name: "Read", arguments: '{"file_path": /w/b.ts}' },
            },
          ],
        },
        {
          role: "tool",
          tool_call_id: "call_1",
          content: "export const a = 1;\n[1 image in the next user message]",
        },
        {
          role: "tool",
          tool_call_id: "call_2",
          content: '[error] {"INVALID_JSON":"{\\"file_path\\": /w/b.ts}"}',
        },
        {
          role: "user",
          content: [
            { type: "text", text: "Images from tool result call_1:" },
            { type: "image_url", image_url: { url: "https://example.com/shot.png" } },
            { type: "text", text: "<system-reminder>Be brief.</system-reminder>" },
          ],
        },
        { role: "assistant", content: "a.ts exports a = 1." },
      ],
      tools: [
        {
          type: "function",
          function: { name: "Read", description: "Read a file", parameters: READ_TOOL.input_schema },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 1024,
      temperature: 0.2,
      stop: ["END"],
    });
  });

  it("sends tool results alone when the user message has nothing else, and null content beside calls", () => {
    const body = encodeOpenAIChatRequest(
      simpleRequest({
        messages: [
          { role: "user", content: [{ type: "text", text: "go" }] },
          { role: "assistant", content: [{ type: "tool_use", id: "c", name: "Ls", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "c", content: "x" }] },
        ],
      }),
      { quirks: OPENAI_CHAT_QUIRKS.openai },
    );
    expect((body.messages as unknown[]).slice(1)).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "Ls", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c", content: "x" },
    ]);
  });

  it("follows the server's quirks and options", () => {
    const quirks = {
      ...OPENAI_CHAT_QUIRKS.generic,
      systemRole: "developer" as const,
      supportsStreamUsage: false,
    };
    const body = encodeOpenAIChatRequest(
      simpleRequest({ providerOptions: { "openai-chat": { options: { num_ctx: 8192 } } } }),
      { quirks, reasoningEffort: "low" },
    );
    expect(body.messages).toEqual([
      { role: "developer", content: "You are terse." },
      { role: "user", content: "Hi" },
    ]);
    expect(body.max_tokens).toBe(1024);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.stream_options).toBeUndefined();
    expect(body.reasoning_effort).toBe("low");
    expect(body.options).toEqual({ num_ctx: 8192 });
    expect(body.tools).toBeUndefined();
  });
});

describe("resolveQuirks", () => {
  it("defaults to openai for api.openai.com and generic elsewhere", () => {
    expect(resolveQuirks(undefined, "https://api.openai.com/v1").maxTokensField).toBe(
      "max_completion_tokens",
    );
    expect(resolveQuirks(undefined, "http://localhost:8080/v1").maxTokensField).toBe("max_tokens");
  });

  it("takes a known server by name or an object over the defaults", () => {
    expect(resolveQuirks("ollama", "http://localhost:11434/v1").reasoningField).toBe("reasoning");
    expect(resolveQuirks({ systemRole: "developer" }, "https://api.openai.com/v1")).toEqual({
      ...OPENAI_CHAT_QUIRKS.openai,
      systemRole: "developer",
    });
  });

  it("names the known servers when given an unknown one", () => {
    expect(() => resolveQuirks("olama", "http://x/v1")).toThrow(
      /Unknown OpenAI-compatible server "olama".*ollama/,
    );
  });
});

describe("createOpenAIChatProvider().encode", () => {
  it("posts to {baseURL}/chat/completions with the key redacted", () => {
    const provider = createOpenAIChatProvider({
      apiKey: "sk-secret",
      baseURL: "http://localhost:11434/v1/",
      quirks: "ollama",
      headers: { "x-extra": "1" },
    });
    const encoded = provider.encode(simpleRequest());
    expect(encoded.url).toBe("http://localhost:11434/v1/chat/completions");
    expect(encoded.headers.authorization).toBe("Bearer <redacted>");
    // A header the caller configured may hold a credential (a proxy's, a tenant's): its value is not shown.
    expect(encoded.headers["x-extra"]).toBe("<redacted>");
    expect(JSON.stringify(encoded)).not.toContain("sk-secret");
    expect((encoded.body as Record<string, unknown>).max_tokens).toBe(1024);
  });
});
