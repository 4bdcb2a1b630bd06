import { afterEach, describe, expect, it } from "vitest";
import {
  frameData,
  longText,
  OPENAI_HEADERS,
  post,
  rawPost,
  splitFrames,
} from "../../../test/support/protocol-test-http.js";
import { readJson } from "../../../test/support/test-http.js";
import { startSimulator } from "../server.js";
import type { SimTurn, Simulator, SimulatorOptions } from "../types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions): Promise<Simulator> {
  sim = await startSimulator(options);
  return sim;
}

const PATH = "/v1/chat/completions";
const chatBody = (overrides: Record<string, unknown> = {}) => ({
  model: "gpt-sim",
  messages: [{ role: "user", content: "hi" }],
  ...overrides,
});
const streamBody = (overrides: Record<string, unknown> = {}) =>
  chatBody({ stream: true, stream_options: { include_usage: true }, ...overrides });
const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });

async function streamFrames(s: Simulator, body: unknown) {
  const res = await post(s.url, PATH, body, OPENAI_HEADERS);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return splitFrames(await res.text(), "\n\n");
}

const parallel: SimTurn = {
  content: [
    { type: "thinking", thinking: "Two lookups.", signature: "sig" },
    { type: "text", text: "Checking both." },
    { type: "tool_use", id: "call_a", name: "get_weather", input: { city: "Paris" } },
    { type: "tool_use", id: "call_b", name: "get_time", input: { zone: "Europe/Paris" } },
  ],
};

describe("chat completions: streaming", () => {
  it("streams role, reasoning_content, content and tool calls one index after another, then usage and [DONE]", async () => {
    const s = await start({ script: [parallel], textChunk: 5, inputChunk: 6 });
    const frames = await streamFrames(s, streamBody());
    expect(frames.every((f) => f.event === undefined)).toBe(true);
    expect(frames.at(-1)?.data).toBe("[DONE]");
    const chunks = frameData(frames.slice(0, -1));
    for (const chunk of chunks) {
      expect(chunk.object).toBe("chat.completion.chunk");
      expect(chunk.id).toBe(chunks[0].id);
      expect(chunk.model).toBe("gpt-sim");
    }
    expect(chunks[0].id).toMatch(/^chatcmpl-/);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    const deltas = chunks.slice(0, -1).map((c) => c.choices[0].delta);
    expect(deltas.map((d) => d.reasoning_content ?? "").join("")).toBe("Two lookups.");
    expect(deltas.map((d) => d.content ?? "").join("")).toBe("Checking both.");
    const fragments = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(fragments.map((f) => f.index)).toEqual([...fragments].map((f) => f.index).sort());
    const heads = fragments.filter((f) => f.id !== undefined);
    expect(heads).toEqual([
      { index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } },
      { index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: "" } },
    ]);
    for (const f of fragments.filter((f) => f.id === undefined))
      expect(Object.keys(f.function)).toEqual(["arguments"]);
    const args = (i: number) =>
      fragments
        .filter((f) => f.index === i)
        .map((f) => f.function.arguments)
        .join("");
    expect(JSON.parse(args(0))).toEqual({ city: "Paris" });
    expect(JSON.parse(args(1))).toEqual({ zone: "Europe/Paris" });
    expect(fragments.filter((f) => f.index === 0).length).toBeGreaterThan(2);
    const finish = chunks.at(-2);
    expect(finish.choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }]);
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it("sends no usage chunk and no usage fields without stream_options.include_usage", async () => {
    const s = await start({ script: [text("hello")] });
    const chunks = frameData(await streamFrames(s, chatBody({ stream: true })));
    expect(chunks.at(-1)).toBe("[DONE]");
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop");
    expect(chunks.slice(0, -1).some((c) => "usage" in c)).toBe(false);
  });

  it("a turn that starts with a tool call opens with content null", async () => {
    const s = await start({ script: [{ content: [{ type: "tool_use", name: "t", input: {} }] }] });
    const chunks = frameData(await streamFrames(s, streamBody()));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: null, refusal: null });
    expect(chunks[1].choices[0].delta.tool_calls[0].id).toMatch(/^call_/);
  });

  it("maps stop reasons: refusal → content_filter, stop_sequence → stop", async () => {
    const s = await start({
      script: [
        { ...text("no"), stopReason: "refusal" },
        { ...text("cut"), stopReason: "stop_sequence" },
      ],
    });
    const first = frameData(await streamFrames(s, streamBody()));
    expect(first.at(-3).choices[0].finish_reason).toBe("content_filter");
    const second = frameData(await streamFrames(s, streamBody()));
    expect(second.at(-3).choices[0].finish_reason).toBe("stop");
  });

  it("a max-tokens fault cuts inside a tool call: partial arguments, finish_reason length", async () => {
    const s = await start({
      script: [
        {
          content: [
            { type: "text", text: "0123456789" },
            { type: "tool_use", id: "call_1", name: "write", input: { path: "a.txt", body: "long" } },
          ],
          fault: { kind: "max-tokens", afterChars: 18 },
        },
        text("next"),
      ],
      inputChunk: 3,
    });
    const chunks = frameData(await streamFrames(s, streamBody()));
    const args = chunks
      .slice(0, -1)
      .flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
      .map((f: { function: { arguments: string } }) => f.function.arguments)
      .join("");
    expect(args).toBe('{"path":');
    expect(chunks.at(-3).choices[0].finish_reason).toBe("length");
    expect(s.requests[0]?.fault).toBe("max-tokens");
    // The fault's cut consumed the turn.
    const next = frameData(await streamFrames(s, streamBody()));
    expect(next.map((c) => (c === "[DONE]" ? "" : (c.choices[0]?.delta.content ?? ""))).join("")).toBe(
      "next",
    );
  });

  it("max_completion_tokens (or max_tokens) cuts the turn and leaves it queued for a retry with more", async () => {
    const s = await start({ script: [text("a".repeat(40))], charsPerToken: 4 });
    const cut = frameData(await streamFrames(s, streamBody({ max_completion_tokens: 2 })));
    expect(cut.map((c) => (c === "[DONE]" ? "" : (c.choices[0]?.delta.content ?? ""))).join("")).toBe(
      "aaaaaaaa",
    );
    expect(cut.at(-3).choices[0].finish_reason).toBe("length");
    const legacy = frameData(await streamFrames(s, streamBody({ max_tokens: 3 })));
    expect(legacy.at(-3).choices[0].finish_reason).toBe("length");
    const whole = frameData(await streamFrames(s, streamBody({ max_completion_tokens: 100 })));
    expect(whole.map((c) => (c === "[DONE]" ? "" : (c.choices[0]?.delta.content ?? ""))).join("")).toBe(
      "a".repeat(40),
    );
    expect(whole.at(-3).choices[0].finish_reason).toBe("stop");
  });
});

describe("chat completions: non-streaming", () => {
  it("answers a chat.completion with content, reasoning_content, tool_calls and usage", async () => {
    const s = await start({ script: [parallel] });
    const res = await post(s.url, PATH, chatBody(), OPENAI_HEADERS);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const body = await readJson(res);
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "gpt-sim",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Checking both.",
            reasoning_content: "Two lookups.",
            tool_calls: [
              {
                id: "call_a",
                type: "function",
                function: { name: "get_weather", arguments: '{"city":"Paris"}' },
              },
              {
                id: "call_b",
                type: "function",
                function: { name: "get_time", arguments: '{"zone":"Europe/Paris"}' },
              },
            ],
          },
        },
      ],
      usage: { prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(s.requests[0]).toMatchObject({ protocol: "openai-chat", status: 200, path: PATH });
  });

  it("an error-event fault is the matching HTTP error when not streaming", async () => {
    const s = await start({ script: [{ ...text("x"), fault: { kind: "error-event", afterEvents: 2 } }] });
    const res = await post(s.url, PATH, chatBody(), OPENAI_HEADERS);
    expect(res.status).toBe(503);
    expect((await readJson(res)).error).toMatchObject({ type: "server_error" });
  });
});

describe("chat completions: validation", () => {
  async function rejected(body: unknown, headers: Record<string, string> = OPENAI_HEADERS) {
    const s = sim ?? (await start({ script: [text("never")] }));
    const res = await post(s.url, PATH, body, headers);
    const json = await readJson(res);
    return { status: res.status, error: json.error };
  }

  it("401 without Authorization: Bearer, in OpenAI's shape", async () => {
    const { status, error } = await rejected(chatBody(), { "content-type": "application/json" });
    expect(status).toBe(401);
    expect(error).toMatchObject({ type: "invalid_request_error", param: null, code: null });
    expect(error.message).toMatch(/^You didn't provide an API key/);
  });

  it("400 for a body that is not JSON", async () => {
    const { status, error } = await rejected("{nope");
    expect(status).toBe(400);
    expect(error.message).toMatch(/could not parse the JSON body/);
  });

  it("messages must be a non-empty array", async () => {
    const { status, error } = await rejected(chatBody({ messages: [] }));
    expect(status).toBe(400);
    expect(error).toEqual({
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      type: "invalid_request_error",
      param: "messages",
      code: "empty_array",
    });
    expect((await rejected(chatBody({ messages: undefined }))).error.code).toBe("missing_required_parameter");
  });

  it("roles are system, developer, user, assistant, tool", async () => {
    const { error } = await rejected(chatBody({ messages: [{ role: "robot", content: "x" }] }));
    expect(error).toMatchObject({ param: "messages[0].role", code: "invalid_value" });
    expect(error.message).toMatch(/^Invalid value: 'robot'\. Supported values are/);
    for (const role of ["system", "developer"]) {
      const s = sim!;
      s.enqueue(text("ok"));
      const res = await post(
        s.url,
        PATH,
        chatBody({
          messages: [
            { role, content: "be brief" },
            { role: "user", content: "hi" },
          ],
        }),
        OPENAI_HEADERS,
      );
      expect(res.status).toBe(200);
    }
  });

  const call = (id: string) => ({ id, type: "function", function: { name: "f", arguments: "{}" } });

  it("every tool call is answered by a tool message before the next non-tool message", async () => {
    const { status, error } = await rejected(
      chatBody({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, tool_calls: [call("call_1"), call("call_2")] },
          { role: "tool", tool_call_id: "call_1", content: "done" },
          { role: "user", content: "and?" },
        ],
      }),
    );
    expect(status).toBe(400);
    expect(error.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
        "The following tool_call_ids did not have response messages: call_2",
    );
    expect(error.param).toBe("messages.[1].role");
    const trailing = await rejected(
      chatBody({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", tool_calls: [call("call_9")] },
        ],
      }),
    );
    expect(trailing.error.message).toMatch(/did not have response messages: call_9$/);
  });

  it("a tool message needs a preceding assistant message with that tool call", async () => {
    const orphan = await rejected(
      chatBody({
        messages: [
          { role: "user", content: "go" },
          { role: "tool", tool_call_id: "call_1", content: "x" },
        ],
      }),
    );
    expect(orphan.error.message).toBe(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
    const wrongId = await rejected(
      chatBody({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, tool_calls: [call("call_1")] },
          { role: "tool", tool_call_id: "call_7", content: "x" },
        ],
      }),
    );
    expect(wrongId.error.message).toBe(
      "Invalid parameter: 'tool_call_id' of 'call_7' not found in 'tool_calls' of previous message.",
    );
  });

  it("a complete tool round trip is accepted", async () => {
    const s = await start({ script: [text("done")] });
    const res = await post(
      s.url,
      PATH,
      chatBody({
        messages: [
          { role: "system", content: "terse" },
          { role: "user", content: "go" },
          { role: "assistant", content: "on it", tool_calls: [call("call_1"), call("call_2")] },
          { role: "tool", tool_call_id: "call_2", content: "two" },
          { role: "tool", tool_call_id: "call_1", content: "one" },
          { role: "user", content: [{ type: "text", text: "thanks" }] },
        ],
      }),
      OPENAI_HEADERS,
    );
    expect(res.status).toBe(200);
  });

  it("tool names match ^[a-zA-Z0-9_-]{1,64}$", async () => {
    const tool = (name: string) => ({ type: "function", function: { name, parameters: { type: "object" } } });
    const bad = await rejected(chatBody({ tools: [tool("ok"), tool("has space")] }));
    expect(bad.error).toMatchObject({ param: "tools[1].function.name", code: "invalid_value" });
    const long = await rejected(chatBody({ tools: [tool("a".repeat(65))] }));
    expect(long.error).toMatchObject({ param: "tools[0].function.name", code: "string_above_max_length" });
  });

  it("max_tokens and max_completion_tokens must be positive integers", async () => {
    const zero = await rejected(chatBody({ max_tokens: 0 }));
    expect(zero.error).toEqual({
      message: "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.",
      type: "invalid_request_error",
      param: "max_tokens",
      code: "integer_below_min_value",
    });
    const frac = await rejected(chatBody({ max_completion_tokens: 1.5 }));
    expect(frac.error).toMatchObject({ param: "max_completion_tokens", code: "invalid_type" });
    expect(sim?.requests.every((r) => r.status === 400 && r.protocol === "openai-chat")).toBe(true);
  });
});

describe("chat completions: faults", () => {
  it("http: the error in OpenAI's shape with retry headers, then the turn", async () => {
    const s = await start({
      script: [
        {
          ...text("after"),
          fault: { kind: "http", status: 429, times: 2, retryAfterSeconds: 2, retryAfterMs: 5 },
        },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const res = await post(s.url, PATH, chatBody(), OPENAI_HEADERS);
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(res.headers.get("retry-after-ms")).toBe("5");
      expect((await readJson(res)).error).toMatchObject({
        type: "requests",
        code: "rate_limit_exceeded",
        param: null,
      });
    }
    const ok = await post(s.url, PATH, chatBody(), OPENAI_HEADERS);
    expect((await readJson(ok)).choices[0].message.content).toBe("after");
    expect(s.requests.map((r) => [r.status, r.fault])).toEqual([
      [429, "http"],
      [429, "http"],
      [200, undefined],
    ]);
  });

  it("error-event: a data: {error} chunk after N chunks, then the stream ends without [DONE]", async () => {
    const s = await start({
      script: [
        {
          ...text("abcdefghij"),
          fault: { kind: "error-event", afterEvents: 3, errorType: "rate_limit_error" },
        },
      ],
      textChunk: 2,
    });
    const frames = await streamFrames(s, streamBody());
    expect(frames).toHaveLength(4);
    const data = frameData(frames);
    expect(data.at(-1)).toEqual({
      error: {
        message: expect.any(String),
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    });
    expect(s.requests[0]?.fault).toBe("error-event");
  });

  it("error-event past the end replaces [DONE]; an OpenAI error type passes through", async () => {
    const s = await start({
      script: [
        { ...text("ab"), fault: { kind: "error-event", afterEvents: 99, errorType: "insufficient_quota" } },
      ],
    });
    const data = frameData(await streamFrames(s, streamBody()));
    expect(data).not.toContain("[DONE]");
    expect(data.at(-1).error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect(data.at(-2).choices).toEqual([]);
  });

  it("disconnect: the socket drops after N bytes", async () => {
    const s = await start({
      script: [{ ...text("x".repeat(200)), fault: { kind: "disconnect", afterBytes: 300 } }],
    });
    const result = await rawPost(s.url, PATH, streamBody(), OPENAI_HEADERS);
    expect(result).toEqual({ status: 200, bytes: 300, broken: true });
  });

  it("an exhausted script is a 500 the client must not retry", async () => {
    const s = await start({ script: [] });
    const res = await post(s.url, PATH, chatBody(), OPENAI_HEADERS);
    expect(res.status).toBe(500);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect((await readJson(res)).error).toMatchObject({
      type: "server_error",
      message: "simulator script exhausted after 0 turns",
    });
  });
});

describe("chat completions: prefix cache", () => {
  it("reports the common prefix with an earlier request of the model, from 1024 tokens, in 128-token steps", async () => {
    const s = await start({ script: [text("1"), text("2"), text("3"), text("4")] });
    const history = [
      { role: "user", content: longText(1500) },
      { role: "assistant", content: "ok" },
    ];
    const usageOf = async (model: string, messages: unknown[]) => {
      const res = await post(s.url, PATH, chatBody({ model, messages }), OPENAI_HEADERS);
      return (await readJson(res)).usage;
    };
    const first = await usageOf("m1", history);
    expect(first.prompt_tokens_details.cached_tokens).toBe(0);
    const second = await usageOf("m1", [...history, { role: "user", content: "more" }]);
    const cached = second.prompt_tokens_details.cached_tokens;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(first.prompt_tokens);
    expect(first.prompt_tokens - cached).toBeLessThan(128 + 2);
    expect(s.requests[1]?.usage?.cache_read_input_tokens).toBe(cached);
    // Another model has its own cache; a short prompt never hits.
    expect((await usageOf("m2", history)).prompt_tokens_details.cached_tokens).toBe(0);
    expect(
      (await usageOf("m1", [{ role: "user", content: "short" }])).prompt_tokens_details.cached_tokens,
    ).toBe(0);
  });
});
