import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_HEADERS, messagesBody, postMessages, readJson } from "../../test/support/test-http.js";
import { startSimulator } from "./server.js";
import type { Simulator } from "./types.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ script: [] });
});
afterAll(() => sim.close());

const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_weather", input: { city: "Paris" } });
const toolResult = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "sunny" });
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  input_schema: { type: "object" },
  ...extra,
});
const cached = (text: string) => ({ type: "text", text, cache_control: { type: "ephemeral" } });

/** [case name, body, exact message] — each must be answered 400 invalid_request_error with that message. */
const cases: [string, unknown, string][] = [
  ["missing model", { max_tokens: 10, messages: [user("hi")] }, "model: Field required"],
  ["missing max_tokens", { model: "m", messages: [user("hi")] }, "max_tokens: Field required"],
  [
    "max_tokens not an integer",
    messagesBody({ max_tokens: 1.5 }),
    "max_tokens: Input should be a valid integer",
  ],
  ["max_tokens a string", messagesBody({ max_tokens: "10" }), "max_tokens: Input should be a valid integer"],
  [
    "max_tokens zero",
    messagesBody({ max_tokens: 0 }),
    "max_tokens: Input should be greater than or equal to 1",
  ],
  ["missing messages", { model: "m", max_tokens: 10 }, "messages: Field required"],
  ["empty messages", messagesBody({ messages: [] }), "messages: at least one message is required"],
  [
    "a tool role",
    messagesBody({ messages: [user("hi"), { role: "tool", content: "x" }] }),
    "messages.1.role: Input should be 'user' or 'assistant'",
  ],
  [
    "a system role",
    messagesBody({ messages: [{ role: "system", content: "x" }] }),
    'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
  ],
  [
    "first message not user",
    messagesBody({ messages: [assistant("hello")] }),
    'messages: first message must use the "user" role',
  ],
  [
    "empty string content",
    messagesBody({ messages: [user("")] }),
    "messages.0: all messages must have non-empty content except for the optional final assistant message",
  ],
  [
    "empty array content (not final assistant)",
    messagesBody({ messages: [user("a"), assistant([]), user("b")] }),
    "messages.1: all messages must have non-empty content except for the optional final assistant message",
  ],
  [
    "an empty text block",
    messagesBody({ messages: [user([{ type: "text", text: "" }])] }),
    "messages.0.content.0.text: text content blocks must be non-empty",
  ],
  [
    "an empty system block",
    messagesBody({ system: [{ type: "text", text: "" }] }),
    "system.0.text: text content blocks must be non-empty",
  ],
  [
    "a tool name with a space",
    messagesBody({ tools: [tool("ok"), tool("bad name")] }),
    "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
  ],
  [
    "a tool name of 65 characters",
    messagesBody({ tools: [tool("a".repeat(65))] }),
    "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
  ],
  [
    "duplicated tool names",
    messagesBody({ tools: [tool("read"), tool("read")] }),
    "tools: Tool names must be unique.",
  ],
  [
    "a tool_use without tool_result in the next message",
    messagesBody({
      messages: [user("a"), assistant("b"), user("c"), assistant([toolUse("toolu_x")]), user("no result")],
    }),
    "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
  ],
  [
    "one of two tool_uses unanswered",
    messagesBody({
      messages: [
        user("a"),
        assistant([toolUse("toolu_1"), toolUse("toolu_2")]),
        user([toolResult("toolu_1")]),
      ],
    }),
    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
  ],
  [
    "a tool_result for an id not in the previous assistant message",
    messagesBody({ messages: [user("a"), assistant("b"), user([toolResult("toolu_ghost")])] }),
    "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_ghost. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
  ],
  [
    "tool_results after a text block",
    messagesBody({
      messages: [
        user("a"),
        assistant([toolUse("toolu_1")]),
        user([{ type: "text", text: "note" }, toolResult("toolu_1")]),
      ],
    }),
    "messages.2.content.1: `tool_result` blocks must come first in the message content, before any other blocks",
  ],
  [
    "duplicate tool_result ids",
    messagesBody({
      messages: [
        user("a"),
        assistant([toolUse("toolu_1")]),
        user([toolResult("toolu_1"), toolResult("toolu_1")]),
      ],
    }),
    "messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_1",
  ],
  [
    "a tool_use whose input is not an object",
    messagesBody({
      messages: [
        user("a"),
        assistant([{ ...toolUse("toolu_1"), input: "{bad" }]),
        user([toolResult("toolu_1")]),
      ],
    }),
    "messages.1.content.0.input: Input should be a valid dictionary",
  ],
  [
    "a cache_control ttl other than 5m or 1h",
    messagesBody({ system: [{ type: "text", text: "s", cache_control: { type: "ephemeral", ttl: "2h" } }] }),
    "cache_control.ttl: Input should be '5m' or '1h' (got \"2h\")",
  ],
  [
    "five cache_control blocks",
    messagesBody({
      tools: [tool("a", { cache_control: { type: "ephemeral" } })],
      system: [cached("s1"), cached("s2")],
      messages: [user([cached("u1"), cached("u2")])],
    }),
    "A maximum of 4 blocks with cache_control may be provided. Found 5.",
  ],
];

describe("request validation (400 invalid_request_error)", () => {
  it.each(cases)("%s", async (_name, body, message) => {
    const before = sim.requests.length;
    const res = await postMessages(sim.url, body);
    expect(res.status).toBe(400);
    const json = await readJson(res);
    expect(json).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message },
      request_id: expect.stringMatching(/^req_011/),
    });
    expect(res.headers.get("request-id")).toBe(json.request_id);
    expect(sim.requests[before]).toMatchObject({ status: 400, error: message });
  });

  it("a body that is not JSON is a 400 and is logged as text", async () => {
    const res = await postMessages(sim.url, "{not json");
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toMatch(/^There was an error parsing the body/);
    expect(sim.requests.at(-1)?.body).toBe("{not json");
  });

  it("a missing API key is a 401 authentication_error", async () => {
    const { "x-api-key": _key, ...headers } = API_HEADERS;
    const res = await postMessages(sim.url, messagesBody(), headers);
    expect(res.status).toBe(401);
    expect(await readJson(res)).toMatchObject({
      type: "error",
      error: { type: "authentication_error", message: "x-api-key header is required" },
    });
    expect(sim.requests.at(-1)).toMatchObject({ status: 401, error: "x-api-key header is required" });
  });
});

describe("valid transcripts pass validation (and reach the script)", () => {
  const valid: [string, unknown][] = [
    ["a final assistant prefill with empty content", messagesBody({ messages: [user("a"), assistant([])] })],
    [
      "answered parallel tool calls",
      messagesBody({
        messages: [
          user("a"),
          assistant([{ type: "text", text: "two calls" }, toolUse("toolu_1"), toolUse("toolu_2")]),
          user([toolResult("toolu_2"), toolResult("toolu_1"), { type: "text", text: "and a note" }]),
        ],
      }),
    ],
    ["an authorization header instead of x-api-key", messagesBody()],
    [
      "four cache_control blocks",
      messagesBody({ system: [cached("1"), cached("2")], messages: [user([cached("3"), cached("4")])] }),
    ],
  ];
  it.each(valid)("%s", async (name, body) => {
    const headers: Record<string, string> = name.startsWith("an authorization")
      ? { "content-type": "application/json", authorization: "Bearer t" }
      : API_HEADERS;
    const res = await postMessages(sim.url, body, headers);
    // The script is empty: a valid request gets past validation to the exhausted-script 500.
    expect(res.status).toBe(500);
    expect((await readJson(res)).error.message).toMatch(/script exhausted/);
  });
});
