import { describe, expect, it } from "vitest";
import { chunkedResponse, wireBody } from "../../../test/fixtures.js";
import type { Message, ToolDefinition } from "../../messages/index.js";
import type { ModelRequest } from "../provider.js";
import { createAnthropicProvider } from "./anthropic-provider.js";
import { encodeAnthropicRequest } from "./encode-request.js";
import { wireToolId } from "./wire-tool-id.js";

const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-sonnet-4-5",
    system: [],
    tools: [],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    maxTokens: 1000,
    ...overrides,
  };
}

function encodedTools(tools: ToolDefinition[]): Record<string, unknown>[] {
  return encodeAnthropicRequest(request({ tools })).tools as Record<string, unknown>[];
}

describe("encodeAnthropicRequest", () => {
  it("writes the minimal body: model, max_tokens, messages, stream; no empty system or tools", () => {
    expect(encodeAnthropicRequest(request())).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 1000,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      stream: true,
    });
  });

  it("sends eager_input_streaming exactly as defined: true, explicit false, or absent", () => {
    const [eager, buffered, unset] = encodedTools([
      { name: "Write", description: "w", input_schema: schema, eager_input_streaming: true },
      { name: "Read", description: "r", input_schema: schema, eager_input_streaming: false },
      { name: "Grep", description: "g", input_schema: schema },
    ]);
    expect(eager).toEqual({
      name: "Write",
      description: "w",
      input_schema: schema,
      eager_input_streaming: true,
    });
    expect(buffered).toEqual({
      name: "Read",
      description: "r",
      input_schema: schema,
      eager_input_streaming: false,
    });
    expect(unset).toEqual({ name: "Grep", description: "g", input_schema: schema });
    expect(unset && "eager_input_streaming" in unset).toBe(false);
  });

  it("passes cache_control through on system, tools, text, images, tool_use and tool_result", () => {
    const body = encodeAnthropicRequest(
      request({
        system: [
          { type: "text", text: "core" },
          { type: "text", text: "env", cache_control: { type: "ephemeral", ttl: "1h" } },
        ],
        tools: [
          { name: "Read", description: "r", input_schema: schema, cache_control: { type: "ephemeral" } },
        ],
        messages: [
          { role: "user", content: [{ type: "text", text: "read a", cache_control: { type: "ephemeral" } }] },
          {
            role: "assistant",
            content: [
              {
                type: "tool_use",
                id: "t1",
                name: "Read",
                input: { path: "a" },
                cache_control: { type: "ephemeral" },
              },
            ],
          },
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "t1",
                content: [
                  { type: "text", text: "A" },
                  {
                    type: "image",
                    source: { type: "base64", media_type: "image/png", data: "iVBO" },
                    cache_control: { type: "ephemeral" },
                  },
                ],
                cache_control: { type: "ephemeral", ttl: "5m" },
              },
            ],
          },
        ],
      }),
    );
    expect(body.system).toEqual([
      { type: "text", text: "core" },
      { type: "text", text: "env", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    expect((body.tools as unknown[])[0]).toMatchObject({ cache_control: { type: "ephemeral" } });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "read a", cache_control: { type: "ephemeral" } }] },
      {
        role: "assistant",
        content: [
          {
            type: "tool_use",
            id: "t1",
            name: "Read",
            input: { path: "a" },
            cache_control: { type: "ephemeral" },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "t1",
            content: [
              { type: "text", text: "A" },
              {
                type: "image",
                source: { type: "base64", media_type: "image/png", data: "iVBO" },
                cache_control: { type: "ephemeral" },
              },
            ],
            cache_control: { type: "ephemeral", ttl: "5m" },
          },
        ],
      },
    ]);
  });

  it("builds blocks field by field: raw_input, input_status and meta never reach the wire", () => {
    const messages: Message[] = [
      {
        role: "assistant",
        content: [
          { type: "text", text: "ok", meta: { citations: [1] } },
          { type: "thinking", thinking: "hm", signature: "sig", meta: { x: 1 } },
          { type: "tool_use", id: "t1", name: "Read", input: { path: "a" }, meta: { thoughtSignature: "s" } },
          {
            type: "tool_use",
            id: "t2",
            name: "Write",
            input: {},
            raw_input: '{"path": "b", "content": "cut',
            input_status: "incomplete",
          },
          {
            type: "tool_use",
            id: "t3",
            name: "Write",
            input: {},
            raw_input: "{bad}",
            input_status: "invalid",
          },
        ],
        stop_reason: "tool_use",
        usage: {
          input_tokens: 1,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
        id: "msg_1",
        model: "m",
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "A", is_error: false },
          { type: "tool_result", tool_use_id: "t2", content: '{"INVALID_JSON":"..."}', is_error: true },
          { type: "tool_result", tool_use_id: "t3", content: "bad" },
        ],
      },
    ];
    expect(encodeAnthropicRequest(request({ messages })).messages).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "ok" },
          { type: "thinking", thinking: "hm", signature: "sig" },
          { type: "tool_use", id: "t1", name: "Read", input: { path: "a" } },
          { type: "tool_use", id: "t2", name: "Write", input: {} },
          { type: "tool_use", id: "t3", name: "Write", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "A", is_error: false },
          { type: "tool_result", tool_use_id: "t2", content: '{"INVALID_JSON":"..."}', is_error: true },
          { type: "tool_result", tool_use_id: "t3", content: "bad" },
        ],
      },
    ]);
  });

  it("sends Anthropic's unknown blocks and redacted thinking back verbatim, drops others' and unsigned thinking", () => {
    const compaction = { type: "compaction", content: "summary" };
    const messages: Message[] = [
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "from another provider" },
          { type: "redacted_thinking", data: "EqkE" },
          { type: "unknown", provider: "anthropic", data: compaction },
          { type: "unknown", provider: "openai-responses", data: { type: "reasoning", id: "rs_1" } },
          { type: "text", text: "" },
          { type: "text", text: "Hello" },
        ],
      },
    ];
    expect(encodeAnthropicRequest(request({ messages })).messages).toEqual([
      {
        role: "assistant",
        content: [{ type: "redacted_thinking", data: "EqkE" }, compaction, { type: "text", text: "Hello" }],
      },
    ]);
  });

  it("skips a message left with no blocks (another provider's unsigned thinking, empty text): the API rejects empty content", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "think first" }] },
      // A Gemini turn cut at max_tokens while thinking: nothing in it can go to Anthropic.
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "hmm", meta: { gemini: { thoughtSignature: "sig" } } }],
      },
      { role: "user", content: [{ type: "text", text: "go on" }] },
      { role: "assistant", content: [{ type: "text", text: "" }] },
    ];
    expect(encodeAnthropicRequest(request({ messages })).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "think first" }] },
      { role: "user", content: [{ type: "text", text: "go on" }] },
    ]);
  });

  it("writes settings: temperature, stop_sequences, thinking budget, vendor options merged last", () => {
    const body = encodeAnthropicRequest(
      request({
        temperature: 1,
        stopSequences: ["</done>"],
        thinkingBudget: 2048,
        providerOptions: { anthropic: { metadata: { user_id: "u1" } }, openai: { store: true } },
      }),
    );
    expect(body).toMatchObject({
      temperature: 1,
      stop_sequences: ["</done>"],
      thinking: { type: "enabled", budget_tokens: 2048 },
      metadata: { user_id: "u1" },
      stream: true,
    });
    expect("store" in body).toBe(false);
    expect("thinking" in encodeAnthropicRequest(request())).toBe(false);
    expect("stop_sequences" in encodeAnthropicRequest(request({ stopSequences: [] }))).toBe(false);
  });

  it("round trip: a decoded message with server tools encodes back to the wire blocks it came from", async () => {
    const provider = createAnthropicProvider({
      apiKey: "k",
      fetch: async () => chunkedResponse([wireBody("anthropic-server-tool-prompt-cache.json")]),
    });
    let assistant: Message | undefined;
    for await (const e of provider.stream(request())) if (e.type === "message-end") assistant = e.message;
    if (!assistant) throw new Error("no message");
    const body = encodeAnthropicRequest(request({ messages: [...request().messages, assistant] }));
    const content = (body.messages as { content: Record<string, unknown>[] }[])[1]?.content;
    expect(content?.map((b) => b.type)).toEqual([
      "server_tool_use",
      "bash_code_execution_tool_result",
      "server_tool_use",
      "bash_code_execution_tool_result",
      "text",
    ]);
    expect(content?.[0]).toEqual({
      type: "server_tool_use",
      id: "srvtoolu_011fxGj786xCAh2kPk9GMxQw",
      name: "bash_code_execution",
      input: { command: 'for n in $(seq 1 12); do echo "$n: $((n*n))"; done' },
    });
  });
});

describe("tool ids from other providers", () => {
  it("maps an id the Messages API would reject, the same way in the tool_use and its tool_result", () => {
    const body = encodeAnthropicRequest({
      model: "m",
      system: [],
      tools: [],
      maxTokens: 10,
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "functions.read:0", name: "Read", input: {} }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "functions.read:0", content: "ok" }] },
      ],
    }) as { messages: Array<{ content: Array<{ id?: string; tool_use_id?: string }> }> };
    const id = body.messages[1]?.content[0]?.id;
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(body.messages[2]?.content[0]?.tool_use_id).toBe(id);
    expect(id).not.toBe(wireToolId("functions.read_0"));
  });

  it("leaves valid ids untouched", () => {
    expect(wireToolId("toolu_01A09q90qw90lq917835lq9")).toBe("toolu_01A09q90qw90lq917835lq9");
  });
});
