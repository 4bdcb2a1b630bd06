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

const PATH = "/v1/responses";
const responsesBody = (overrides: Record<string, unknown> = {}) => ({
  model: "gpt-sim",
  input: "hi",
  ...overrides,
});
const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary event fields
async function streamEvents(s: Simulator, body: unknown): Promise<any[]> {
  const res = await post(s.url, PATH, { ...(body as object), stream: true }, OPENAI_HEADERS);
  expect(res.status).toBe(200);
  const frames = splitFrames(await res.text(), "\n\n");
  const data = frameData(frames);
  for (const [i, frame] of frames.entries()) expect(frame.event).toBe(data[i].type);
  return data;
}

const turn: SimTurn = {
  content: [
    { type: "thinking", thinking: "Need the capital.", signature: "enc-1" },
    { type: "text", text: "Looking it up." },
    { type: "tool_use", id: "call_cap", name: "get_capital", input: { country: "France" } },
  ],
};

describe("responses: streaming", () => {
  it("streams reasoning, message and function_call items with sequence numbers, then response.completed", async () => {
    const s = await start({ script: [turn], textChunk: 4, inputChunk: 5 });
    const events = await streamEvents(s, responsesBody({ instructions: "Be brief." }));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events
      .map((e) => e.type)
      .filter((t, i, all) => !(t.endsWith(".delta") && all[i - 1] === t));
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[0].response).toMatchObject({
      status: "in_progress",
      output: [],
      usage: null,
      instructions: "Be brief.",
    });
    const joined = (type: string) =>
      events
        .filter((e) => e.type === type)
        .map((e) => e.delta)
        .join("");
    expect(joined("response.reasoning_summary_text.delta")).toBe("Need the capital.");
    expect(joined("response.output_text.delta")).toBe("Looking it up.");
    expect(JSON.parse(joined("response.function_call_arguments.delta"))).toEqual({ country: "France" });
    const added = events
      .filter((e) => e.type === "response.output_item.added")
      .map((e) => [e.output_index, e.item.type]);
    expect(added).toEqual([
      [0, "reasoning"],
      [1, "message"],
      [2, "function_call"],
    ]);
    const completed = events.at(-1).response;
    expect(completed.status).toBe("completed");
    expect(completed.output).toEqual([
      {
        id: expect.stringMatching(/^rs_/),
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Need the capital." }],
        encrypted_content: "enc-1",
      },
      {
        id: expect.stringMatching(/^msg_/),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", annotations: [], logprobs: [], text: "Looking it up." }],
      },
      {
        id: expect.stringMatching(/^fc_/),
        type: "function_call",
        status: "completed",
        arguments: '{"country":"France"}',
        call_id: "call_cap",
        name: "get_capital",
      },
    ]);
    expect(completed.usage).toMatchObject({
      input_tokens: expect.any(Number),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: expect.any(Number),
      output_tokens_details: { reasoning_tokens: 5 },
    });
    expect(s.requests[0]).toMatchObject({ protocol: "openai-responses", status: 200 });
  });

  it("a cut by max_output_tokens ends with response.incomplete; a cut function call gets no .done events", async () => {
    const s = await start({
      script: [
        {
          content: [
            { type: "text", text: "abc" },
            { type: "tool_use", id: "call_w", name: "write", input: { path: "a.txt" } },
          ],
          fault: { kind: "max-tokens", afterChars: 8 },
        },
      ],
    });
    const events = await streamEvents(s, responsesBody());
    const last = events.at(-1);
    expect(last.type).toBe("response.incomplete");
    expect(last.response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(events.some((e) => e.type === "response.function_call_arguments.done")).toBe(false);
    expect(events.filter((e) => e.type === "response.output_item.done")).toHaveLength(1);
    expect(last.response.output[1]).toMatchObject({
      type: "function_call",
      status: "incomplete",
      arguments: '{"pat',
    });
  });

  it("max_output_tokens of the request cuts the turn and leaves it queued", async () => {
    const s = await start({ script: [text("b".repeat(100))] });
    const cut = await streamEvents(s, responsesBody({ max_output_tokens: 16 }));
    expect(cut.at(-1).type).toBe("response.incomplete");
    expect(cut.at(-1).response.output[0]).toMatchObject({
      status: "incomplete",
      content: [{ text: "b".repeat(64) }],
    });
    const whole = await streamEvents(s, responsesBody({ max_output_tokens: 100 }));
    expect(whole.at(-1).type).toBe("response.completed");
  });

  it("a refusal streams refusal parts; redacted thinking is a reasoning item carrying the data", async () => {
    const s = await start({
      script: [
        {
          content: [
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "I can't help." },
          ],
          stopReason: "refusal",
        },
      ],
    });
    const events = await streamEvents(s, responsesBody());
    expect(
      events
        .filter((e) => e.type === "response.refusal.delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("I can't help.");
    expect(events.some((e) => e.type === "response.output_text.delta")).toBe(false);
    expect(events.at(-1).response.output).toEqual([
      { id: expect.any(String), type: "reasoning", summary: [], encrypted_content: "opaque" },
      expect.objectContaining({ content: [{ type: "refusal", refusal: "I can't help." }] }),
    ]);
  });
});

describe("responses: non-streaming", () => {
  it("answers the response object with the output items and usage", async () => {
    const s = await start({ script: [turn] });
    const res = await post(s.url, PATH, responsesBody(), OPENAI_HEADERS);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ object: "response", status: "completed", model: "gpt-sim", error: null });
    expect(body.id).toMatch(/^resp_/);
    expect(body.output.map((i: { type: string }) => i.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
    ]);
    expect(body.usage.total_tokens).toBe(body.usage.input_tokens + body.usage.output_tokens);
  });
});

describe("responses: validation", () => {
  async function rejected(body: unknown, headers: Record<string, string> = OPENAI_HEADERS) {
    const s = sim ?? (await start({ script: [text("never")] }));
    const res = await post(s.url, PATH, body, headers);
    return { status: res.status, error: (await readJson(res)).error };
  }
  const call = (id: string) => ({ type: "function_call", call_id: id, name: "f", arguments: "{}" });
  const output = (id: string) => ({ type: "function_call_output", call_id: id, output: "ok" });

  it("401 without a bearer key", async () => {
    expect((await rejected(responsesBody(), { "content-type": "application/json" })).status).toBe(401);
  });

  it("every function_call_output answers an earlier function_call", async () => {
    const { status, error } = await rejected(
      responsesBody({ input: [{ role: "user", content: "go" }, output("call_zz")] }),
    );
    expect(status).toBe(400);
    expect(error).toEqual({
      message: "No tool call found for function call output with call_id call_zz.",
      type: "invalid_request_error",
      param: "input",
      code: null,
    });
  });

  it("every function_call in input is answered", async () => {
    const { error } = await rejected(
      responsesBody({
        input: [{ role: "user", content: "go" }, call("call_1"), call("call_2"), output("call_1")],
      }),
    );
    expect(error.message).toBe("No tool output found for function call call_2.");
  });

  it("a round trip with reasoning items and outputs in any order is accepted", async () => {
    const s = await start({ script: [text("done")] });
    const res = await post(
      s.url,
      PATH,
      responsesBody({
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
          { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "x" },
          call("call_1"),
          call("call_2"),
          output("call_2"),
          output("call_1"),
        ],
      }),
      OPENAI_HEADERS,
    );
    expect(res.status).toBe(200);
  });

  it("roles, tool names, max_output_tokens and previous_response_id", async () => {
    const role = await rejected(responsesBody({ input: [{ role: "robot", content: "x" }] }));
    expect(role.error).toMatchObject({ param: "input[0].role", code: "invalid_value" });
    const tool = await rejected(
      responsesBody({ tools: [{ type: "function", name: "bad name", parameters: {} }] }),
    );
    expect(tool.error).toMatchObject({ param: "tools[0].name", code: "invalid_value" });
    const small = await rejected(responsesBody({ max_output_tokens: 15 }));
    expect(small.error.message).toBe(
      "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 15 instead.",
    );
    const previous = await rejected(responsesBody({ previous_response_id: "resp_x" }));
    expect(previous.error).toMatchObject({
      code: "previous_response_not_found",
      param: "previous_response_id",
    });
    expect((await rejected(responsesBody({ input: undefined }))).error.code).toBe(
      "missing_required_parameter",
    );
  });
});

describe("responses: faults", () => {
  it("error-event: an error event then response.failed, and the stream ends", async () => {
    const s = await start({
      script: [
        {
          ...text("abcdef"),
          fault: { kind: "error-event", afterEvents: 4, errorType: "insufficient_quota" },
        },
      ],
    });
    const events = await streamEvents(s, responsesBody());
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "error",
      "response.failed",
    ]);
    expect(events[4]).toEqual({
      type: "error",
      sequence_number: 4,
      error: {
        type: "insufficient_quota",
        code: "insufficient_quota",
        message: expect.any(String),
        param: null,
      },
    });
    expect(events[5].response).toMatchObject({ status: "failed", error: { code: "insufficient_quota" } });
    expect(events[5].sequence_number).toBe(5);
  });

  it("http faults answer in OpenAI's shape with retry headers; disconnect drops the socket", async () => {
    const s = await start({
      script: [
        { ...text("x".repeat(300)), fault: { kind: "http", status: 500, retryAfterSeconds: 1 } },
        { ...text("y".repeat(300)), fault: { kind: "disconnect", afterBytes: 500 } },
      ],
    });
    const res = await post(s.url, PATH, responsesBody(), OPENAI_HEADERS);
    expect(res.status).toBe(500);
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await readJson(res)).error.type).toBe("server_error");
    const first = await post(s.url, PATH, responsesBody(), OPENAI_HEADERS);
    expect(first.status).toBe(200);
    expect(await rawPost(s.url, PATH, responsesBody({ stream: true }), OPENAI_HEADERS)).toEqual({
      status: 200,
      bytes: 500,
      broken: true,
    });
  });

  it("the prefix cache counts the repeated head of a growing conversation", async () => {
    const s = await start({ script: [text("1"), text("2")] });
    const head = [{ role: "user", content: longText(1300) }];
    await post(s.url, PATH, responsesBody({ input: head }), OPENAI_HEADERS);
    const res = await post(
      s.url,
      PATH,
      responsesBody({
        input: [...head, { role: "assistant", content: "1" }, { role: "user", content: "more" }],
      }),
      OPENAI_HEADERS,
    );
    const { usage } = await readJson(res);
    expect(usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(usage.input_tokens_details.cached_tokens % 128).toBe(0);
  });
});
