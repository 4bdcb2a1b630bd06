import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import { type AgentResult, type RunAgentOptions, runAgent } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import {
  type ContentBlock,
  emptyUsage,
  type ToolResultBlock,
  type ToolUseBlock,
  type Usage,
} from "../../src/messages/index.js";
import type { ModelRequest } from "../../src/providers/provider.js";
import {
  type SimTurn,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from "../../src/simulator/index.js";
import type { StreamEvent } from "../../src/stream/stream-event.js";
import { collect, endMessage } from "../provider-harness.js";
import { PIXEL } from "../transcript.js";
import { ADAPTERS, type ConformanceAdapter, type Seams } from "./conformance-adapters.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  sim = await startSimulator(options);
  return sim;
}

const TEXT = "Hello from the scripted model: one answer, the same on every wire.";
const LONG_TEXT =
  "This answer is long enough to be streamed in many small pieces, so that a fault or an abort can land " +
  "in the middle of it, after some text has already reached the client.";
const THOUGHT = "The user wants the weather; I should call the Weather tool for Paris.";

/** The Weather tool: logs each call, answers after `delays[city]` ms (so parallel calls finish out of order). */
function weatherTool(
  log: string[],
  options: { delays?: Record<string, number>; eager?: boolean } = {},
): Tool {
  return {
    name: "Weather",
    description: "The weather in a city.",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    ...(options.eager ? { eagerInputStreaming: true } : {}),
    async run(input) {
      const city = String(input.city);
      log.push(city);
      const delay = options.delays?.[city] ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      return `Sunny in ${city}`;
    },
  };
}

function saveTool(saved: string[]): Tool {
  return {
    name: "Save",
    description: "Saves a note.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
    async run(input) {
      saved.push(String(input.content));
      return `Saved ${String(input.path)}`;
    },
  };
}

const screenshotTool: Tool = {
  name: "Screenshot",
  description: "Takes a screenshot.",
  inputSchema: { type: "object", properties: {} },
  async run() {
    return [
      { type: "text", text: "A pixel." },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
    ];
  },
};

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool_use", id, name, input }) as const;

/** The blocks of a message without provider meta: what must be the same on every wire. */
function shape(content: readonly ContentBlock[]): unknown[] {
  return content.map((block) => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "thinking":
        return { type: "thinking", thinking: block.thinking };
      case "tool_use": {
        const out: Record<string, unknown> = { type: "tool_use", name: block.name, input: block.input };
        if (block.input_status !== undefined) out.input_status = block.input_status;
        return out;
      }
      default:
        return { type: block.type };
    }
  });
}

/** Event types in order, deltas of a run collapsed, usage events left out (their place differs by wire). */
function kinds(events: readonly (StreamEvent | AgentEvent)[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    if (event.type === "usage") continue;
    if (event.type.endsWith("-delta") && out.at(-1) === event.type) continue;
    out.push(event.type);
  }
  return out;
}

function request(adapter: ConformanceAdapter, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: adapter.model,
    system: [{ type: "text", text: "You are terse." }],
    tools: [],
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    maxTokens: 1024,
    ...overrides,
  };
}

interface Run {
  result: AgentResult;
  events: AgentEvent[];
}

/** Scripts the simulator with the turns (as this adapter's model writes them) and runs the loop to its end. */
async function run(
  adapter: ConformanceAdapter,
  s: Simulator,
  script: SimTurn[],
  options: Partial<RunAgentOptions> & { seams?: Seams; onEvent?: (event: AgentEvent) => void } = {},
): Promise<Run> {
  const { seams, onEvent, ...rest } = options;
  s.enqueue(...script.map(adapter.turn));
  const events: AgentEvent[] = [];
  const agent = runAgent({
    provider: adapter.provider(s, seams),
    model: adapter.model,
    messages: [{ role: "user", content: [{ type: "text", text: "What is the weather?" }] }],
    ...rest,
  });
  for (;;) {
    const next = await agent.next();
    if (next.done) {
      expect(checkTranscript(next.value.messages)).toEqual([]);
      return { result: next.value, events };
    }
    events.push(next.value);
    onEvent?.(next.value);
  }
}

function toolUses(result: AgentResult): ToolUseBlock[] {
  return result.messages.flatMap((m) => m.content.filter((b): b is ToolUseBlock => b.type === "tool_use"));
}

function toolResults(result: AgentResult): ToolResultBlock[] {
  return result.messages.flatMap((m) =>
    m.content.filter((b): b is ToolResultBlock => b.type === "tool_result"),
  );
}

/** How a result names its call on this wire: by id, or (Gemini) by name. */
function answered(adapter: ConformanceAdapter, calls: ToolUseBlock[]): Array<string | undefined> {
  return calls.map((c) => (adapter.resultIds ? c.id : c.name));
}

const instant: Seams = { sleep: async () => {} };

describe.each(ADAPTERS)("conformance: $name", (adapter) => {
  it("streams a text-only answer as the same neutral events and message", async () => {
    const s = await simulator({ delayMs: 2 }); // a pause between events: each delta its own read
    s.enqueue(adapter.turn({ content: [{ type: "text", text: TEXT }] }));
    const events = await collect(adapter.provider(s).stream(request(adapter)));
    expect(kinds(events)).toEqual(["message-start", "text-start", "text-delta", "text-end", "message-end"]);
    const deltas = events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(TEXT);
    const message = endMessage(events);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.incomplete).toBeUndefined();
    expect(shape(message.content)).toEqual([{ type: "text", text: TEXT }]);
    expect(s.requests.map((r) => [r.protocol, r.status])).toEqual([[adapter.protocol, 200]]);
  });

  it("runs one tool call through the loop and sends its result back in the API's shape", async () => {
    const s = await simulator();
    const log: string[] = [];
    const { result, events } = await run(
      adapter,
      s,
      [
        { content: [{ type: "text", text: "Checking." }, call("call_w1", "Weather", { city: "Paris" })] },
        { content: [{ type: "text", text: "It is sunny in Paris." }] },
      ],
      { tools: [weatherTool(log)] },
    );
    expect(result.reason).toBe("end_turn");
    expect(log).toEqual(["Paris"]);
    // The same neutral events on every wire, the loop's own included.
    expect(kinds(events)).toEqual([
      "turn-start",
      "message-start",
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "message-end",
      "message",
      "tool-call-start",
      "tool-call-end",
      "message",
      "turn-start",
      "message-start",
      "text-start",
      "text-delta",
      "text-end",
      "message-end",
      "message",
      "agent-end",
    ]);
    // The XML protocol keeps the whitespace the model wrote before a tag: it streamed as text before the tag began.
    const before = adapter.xml ? "Checking.\n" : "Checking.";
    expect(result.messages.map((m) => [m.role, shape(m.content)])).toEqual([
      ["user", [{ type: "text", text: "What is the weather?" }]],
      [
        "assistant",
        [
          { type: "text", text: before },
          { type: "tool_use", name: "Weather", input: { city: "Paris" } },
        ],
      ],
      ["user", [{ type: "tool_result" }]],
      ["assistant", [{ type: "text", text: "It is sunny in Paris." }]],
    ]);
    const [use] = toolUses(result);
    if (adapter.callIds) expect(use?.id).toBe("call_w1");
    expect(toolResults(result)).toEqual([
      { type: "tool_result", tool_use_id: use?.id, content: "Sunny in Paris" },
    ]);
    const body = s.requests[1]?.body;
    expect(adapter.calls(body)).toEqual([
      { id: adapter.callIds ? "call_w1" : undefined, name: "Weather", args: '{"city":"Paris"}' },
    ]);
    const sent = adapter.results(body);
    expect(sent.map((r) => (adapter.resultIds ? r.id : r.name))).toEqual(answered(adapter, toolUses(result)));
    expect(sent.map((r) => [r.text, r.isError])).toEqual([["Sunny in Paris", false]]);
  });

  it("runs parallel calls and sends both results back, in call order", async () => {
    const s = await simulator();
    const log: string[] = [];
    const { result } = await run(
      adapter,
      s,
      [
        {
          content: [
            call("call_p1", "Weather", { city: "Paris" }),
            call("call_p2", "Weather", { city: "Tokyo" }),
          ],
        },
        { content: [{ type: "text", text: "Sunny in both." }] },
      ],
      // Paris finishes last: the order of the results is the order of the calls, not of completion.
      { tools: [weatherTool(log, { delays: { Paris: 30 } })] },
    );
    expect(result.reason).toBe("end_turn");
    expect(log.sort()).toEqual(["Paris", "Tokyo"]);
    const uses = toolUses(result);
    expect(uses.map((u) => u.input)).toEqual([{ city: "Paris" }, { city: "Tokyo" }]);
    if (adapter.callIds) expect(uses.map((u) => u.id)).toEqual(["call_p1", "call_p2"]);
    expect(toolResults(result).map((r) => [r.tool_use_id, r.content])).toEqual([
      [uses[0]?.id, "Sunny in Paris"],
      [uses[1]?.id, "Sunny in Tokyo"],
    ]);
    const body = s.requests[1]?.body;
    expect(adapter.calls(body).map((c) => [c.id, c.name, c.args])).toEqual([
      [adapter.callIds ? "call_p1" : undefined, "Weather", '{"city":"Paris"}'],
      [adapter.callIds ? "call_p2" : undefined, "Weather", '{"city":"Tokyo"}'],
    ]);
    const sent = adapter.results(body);
    expect(sent.map((r) => (adapter.resultIds ? r.id : r.name))).toEqual(answered(adapter, uses));
    expect(sent.map((r) => r.text)).toEqual(["Sunny in Paris", "Sunny in Tokyo"]);
  });

  it("streams tool input in pieces where the wire does (Gemini: whole arguments)", async () => {
    // Eager on Anthropic (a buffered tool's input is released whole at block end); other wires ignore the field.
    const s = await simulator({ inputChunk: 8, delayMs: 2 }); // each fragment its own read
    const note = "A note long enough to arrive in several fragments of JSON.";
    s.enqueue(adapter.turn({ content: [call("call_s1", "Save", { path: "n.txt", content: note })] }));
    const events = await collect(
      adapter
        .provider(s)
        .stream(request(adapter, { tools: [{ ...saveDefinition, eager_input_streaming: true }] })),
    );
    const deltas = events.flatMap((e) => (e.type === "tool-input-delta" ? [e] : []));
    const json = JSON.stringify({ path: "n.txt", content: note });
    expect(deltas.map((d) => d.delta).join("")).toBe(json);
    // Live string decoding: the note's characters arrive under their JSON path as they stream.
    const live = deltas.flatMap((d) => d.strings.filter((c) => c.path[0] === "content").map((c) => c.text));
    expect(live.join("")).toBe(note);
    if (adapter.protocol === "gemini") expect(deltas).toHaveLength(1);
    else expect(deltas.length).toBeGreaterThan(5);
    const message = endMessage(events);
    expect(message.stop_reason).toBe("tool_use");
    expect(shape(message.content)).toEqual([
      { type: "tool_use", name: "Save", input: { path: "n.txt", content: note } },
    ]);
  });

  it("keeps reasoning and sends it back where the API takes it", async () => {
    const s = await simulator();
    const log: string[] = [];
    const { result } = await run(
      adapter,
      s,
      [
        {
          content: [
            { type: "thinking", thinking: THOUGHT, signature: "sig-abc" },
            call("call_r1", "Weather", { city: "Paris" }),
          ],
        },
        { content: [{ type: "text", text: "Sunny." }] },
      ],
      { tools: [weatherTool(log)], thinkingBudget: 2048 },
    );
    expect(result.reason).toBe("end_turn");
    expect(log).toEqual(["Paris"]);
    // Every wire delivers the reasoning text as a thinking block before the call.
    expect(shape(result.messages[1]?.content ?? [])).toEqual([
      { type: "thinking", thinking: THOUGHT },
      { type: "tool_use", name: "Weather", input: { city: "Paris" } },
    ]);
    const sentBack = REASONING_SENT_BACK[adapter.name];
    expect(sentBack).toBeDefined();
    sentBack?.(s.requests[1]?.body);
  });

  it("retries a turn cut at max_tokens inside a tool call with doubled max_tokens (Gemini: the call never arrives)", async () => {
    const s = await simulator();
    const saved: string[] = [];
    const content = "x".repeat(100);
    const { result, events } = await run(
      adapter,
      s,
      [
        {
          content: [{ type: "text", text: "Writing." }, call("call_m1", "Save", { path: "a.txt", content })],
        },
        { content: [{ type: "text", text: "Saved." }] },
      ],
      { tools: [saveTool(saved)], maxTokens: 25 },
    );
    const warnings = events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    if (adapter.protocol === "gemini") {
      // Gemini sends a functionCall whole or not at all: a cut leaves only the text, finishReason MAX_TOKENS.
      // The loop cannot tell a call was cut, so it stops with max_tokens; the tool never runs.
      expect(result.reason).toBe("max_tokens");
      expect(saved).toEqual([]);
      expect(warnings).toEqual([]);
      expect(result.lastMessage?.stop_reason).toBe("max_tokens");
      expect(shape(result.lastMessage?.content ?? [])).toEqual([{ type: "text", text: "Writing." }]);
      expect(s.requests).toHaveLength(1);
      return;
    }
    expect(warnings).toEqual(["max_tokens_retry"]);
    expect(result.reason).toBe("end_turn");
    expect(saved).toEqual([content]);
    expect(s.requests.map((r) => adapter.maxTokens(r.body))).toEqual([25, 50, 25]);
    // The cut message was dropped: the transcript holds only the retried, complete turn.
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(toolUses(result).map((u) => u.input_status)).toEqual([undefined]);
  });

  it("retries an error that arrives mid-stream before any content", async () => {
    const s = await simulator();
    s.enqueue(
      adapter.turn({
        content: [{ type: "text", text: "lost" }],
        fault: { kind: "error-event", afterEvents: 0, errorType: "overloaded_error" },
      }),
      adapter.turn({ content: [{ type: "text", text: TEXT }] }),
    );
    const events = await collect(adapter.provider(s, instant).stream(request(adapter)));
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    const message = endMessage(events);
    expect(message.stop_reason).toBe("end_turn");
    expect(shape(message.content)).toEqual([{ type: "text", text: TEXT }]);
    expect(s.requests.map((r) => r.fault)).toEqual(["error-event", undefined]);
  });

  it("ends incomplete with stop_reason error when the error comes after content (no retry)", async () => {
    const s = await simulator();
    s.enqueue(
      adapter.turn({
        content: [{ type: "text", text: LONG_TEXT }],
        fault: { kind: "error-event", afterEvents: 6, errorType: "overloaded_error" },
      }),
    );
    const events = await collect(adapter.provider(s, instant).stream(request(adapter)));
    expect(events.filter((e) => e.type === "retry")).toHaveLength(0);
    const message = endMessage(events);
    expect(message.stop_reason).toBe("error");
    expect(message.incomplete).toBe(true);
    expect(message.error?.message).toBeTruthy();
    const [block] = message.content;
    expect(block?.type).toBe("text");
    const text = block?.type === "text" ? block.text : "";
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(LONG_TEXT.length);
    expect(LONG_TEXT.startsWith(text)).toBe(true);
    expect(s.requests).toHaveLength(1);
  });

  it("stops on abort mid-stream with stop_reason aborted and a valid transcript", async () => {
    const s = await simulator({ delayMs: 2, textChunk: 4 });
    const controller = new AbortController();
    const log: string[] = [];
    const { result } = await run(
      adapter,
      s,
      [{ content: [{ type: "text", text: LONG_TEXT }, call("call_a1", "Weather", { city: "Paris" })] }],
      {
        tools: [weatherTool(log)],
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "text-delta") controller.abort();
        },
      },
    );
    expect(result.reason).toBe("aborted");
    expect(result.lastMessage?.stop_reason).toBe("aborted");
    expect(log).toEqual([]);
    // run() checked the transcript; the partial text, if kept, is a prefix of what was streamed.
    const kept = result.messages.slice(1).flatMap((m) => m.content);
    for (const block of kept) {
      expect(block.type).toBe("text");
      if (block.type === "text") expect(LONG_TEXT.startsWith(block.text)).toBe(true);
    }
  });

  it("maps usage: input, output and cached tokens as the simulator counted them", async () => {
    const s = await simulator({ minCacheableTokens: 256 });
    const rules = "House rule: answer in one short sentence, never more. ".repeat(80);
    const req = request(adapter, {
      system: [{ type: "text", text: rules, cache_control: { type: "ephemeral" } }],
    });
    const messages = [];
    for (const text of ["First.", "Second."]) {
      s.enqueue(adapter.turn({ content: [{ type: "text", text }] }));
      messages.push(endMessage(await collect(adapter.provider(s).stream(req))));
    }
    messages.forEach((message, i) => {
      const counted = s.requests[i]?.usage;
      expect(counted).toBeDefined();
      expect(message.usage).toEqual({
        input_tokens: counted?.input_tokens,
        output_tokens: counted?.output_tokens,
        cache_creation_input_tokens: counted?.cache_creation_input_tokens,
        cache_read_input_tokens: counted?.cache_read_input_tokens,
      });
      expect(message.usage?.output_tokens).toBeGreaterThan(0);
    });
    const [first, second] = messages.map((m) => m.usage ?? emptyUsage());
    const prompt = (u: Usage) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    expect(prompt(second as Usage)).toBe(prompt(first as Usage));
    expect(first?.cache_read_input_tokens).toBe(0);
    // The same prompt again: a cache hit, counted apart from the uncached input.
    expect(second?.cache_read_input_tokens).toBeGreaterThan(256);
    if (adapter.protocol === "anthropic") {
      // Only the Messages API reports cache writes (at the cache_control breakpoint); the others cache silently.
      expect(first?.cache_creation_input_tokens).toBeGreaterThan(256);
      expect(second?.cache_read_input_tokens).toBe(first?.cache_creation_input_tokens);
    } else {
      expect(first?.cache_creation_input_tokens).toBe(0);
      expect(second?.input_tokens).toBeLessThan(first?.input_tokens ?? 0);
    }
  });

  it("handles an empty response: nothing kept, a warning, the run ends", async () => {
    const s = await simulator();
    const { result, events } = await run(adapter, s, [{ content: [] }]);
    expect(result.reason).toBe("end_turn");
    expect(result.lastMessage?.content).toEqual([]);
    expect(result.lastMessage?.stop_reason).toBe("end_turn");
    expect(result.messages.map((m) => m.role)).toEqual(["user"]);
    expect(events.flatMap((e) => (e.type === "warning" ? [e.code] : []))).toEqual(["empty_response"]);
  });

  it("waits out an HTTP 429 for the retry-after it names, then succeeds", async () => {
    const s = await simulator();
    const waits: number[] = [];
    s.enqueue(
      adapter.turn({
        content: [{ type: "text", text: TEXT }],
        fault: { kind: "http", status: 429, retryAfterSeconds: 3 },
      }),
    );
    const provider = adapter.provider(s, { sleep: async (ms) => void waits.push(ms) });
    const events = await collect(provider.stream(request(adapter)));
    expect(waits).toEqual([3000]);
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.delayMs)).toEqual([
      3000,
    ]);
    const message = endMessage(events);
    expect(message.stop_reason).toBe("end_turn");
    expect(shape(message.content)).toEqual([{ type: "text", text: TEXT }]);
    expect(s.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("answers invalid JSON tool input with the INVALID_JSON verdict (Gemini: the wire cannot carry it)", async () => {
    const s = await simulator();
    const log: string[] = [];
    const raw = '{"city": Paris}';
    const { result } = await run(
      adapter,
      s,
      [
        { content: [{ type: "tool_use", id: "call_j1", name: "Weather", rawInput: raw }] },
        { content: [{ type: "text", text: "Let me fix that." }] },
      ],
      // Eager: the Messages API streams such input unvalidated only for eager tools.
      { tools: [weatherTool(log, { eager: true })] },
    );
    expect(log).toEqual([]);
    if (adapter.protocol === "gemini") {
      // A functionCall's args is a JSON object, whole: invalid JSON cannot be sent. The simulator refuses the
      // script (a 500 not to retry), and the run ends with that error.
      expect(result.reason).toBe("error");
      expect(s.requests.map((r) => r.status)).toEqual([500]);
      expect(s.requests[0]?.error).toContain("Gemini sends a functionCall's args whole");
      expect(result.error?.message).toContain("Gemini sends a functionCall's args whole");
      return;
    }
    expect(result.reason).toBe("end_turn");
    const [use] = toolUses(result);
    expect(use).toMatchObject({ name: "Weather", input: {}, raw_input: raw, input_status: "invalid" });
    const verdict = JSON.stringify({ INVALID_JSON: raw });
    expect(toolResults(result)).toEqual([
      { type: "tool_result", tool_use_id: use?.id, content: verdict, is_error: true },
    ]);
    const body = s.requests[1]?.body;
    // The call goes back as the model wrote it, except on the Messages API, whose tool_use input must be an object.
    expect(adapter.calls(body).map((c) => c.args)).toEqual([adapter.name === "anthropic" ? "{}" : raw]);
    expect(adapter.results(body).map((r) => [r.text, r.isError])).toEqual([[verdict, true]]);
  });

  it("carries images in tool results back to the model", async () => {
    const s = await simulator();
    const { result } = await run(
      adapter,
      s,
      [{ content: [call("call_i1", "Screenshot", {})] }, { content: [{ type: "text", text: "One pixel." }] }],
      { tools: [screenshotTool] },
    );
    expect(result.reason).toBe("end_turn");
    const body = s.requests[1]?.body;
    expect(adapter.images(body)).toBe(1);
    const [sent] = adapter.results(body);
    expect(sent?.text).toContain("A pixel.");
    expect(sent?.isError).toBe(false);
  });
});

describe.each(ADAPTERS)("conformance: $name, untrusted servers", (adapter) => {
  it("a reused tool_use id (call_0 twice in a turn, then again next turn) is made unique; both tools run once and the session goes on", async () => {
    const s = await simulator();
    const log: string[] = [];
    const { result } = await run(
      adapter,
      s,
      [
        {
          content: [
            call("call_0", "Weather", { city: "Paris" }),
            call("call_0", "Weather", { city: "Oslo" }),
          ],
        },
        { content: [call("call_0", "Weather", { city: "Rome" })] },
        { content: [{ type: "text", text: "Done." }] },
      ],
      { tools: [weatherTool(log)] },
    );
    expect(result.reason).toBe("end_turn");
    expect(log.sort()).toEqual(["Oslo", "Paris", "Rome"]);
    // Every request was accepted: the duplicate never reached the wire.
    expect(s.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const ids = toolUses(result).map((u) => u.id);
    expect(new Set(ids).size).toBe(3);
    // The id the server sent is kept where it is unique; the repeats are derived from it.
    if (adapter.callIds) expect(ids).toEqual(["call_0", "call_0_2", "call_0_3"]);
    expect(toolResults(result).map((r) => r.tool_use_id)).toEqual(ids);
  });

  it("a stream that goes silent warns while it waits, is dropped at the idle timeout and retried", async () => {
    const s = await simulator();
    s.enqueue(
      adapter.turn({ content: [{ type: "text", text: "lost" }], fault: { kind: "stall", afterBytes: 0 } }),
      adapter.turn({ content: [{ type: "text", text: TEXT }] }),
    );
    const provider = adapter.provider(s, { ...instant, idleTimeoutMs: 400, stallWarningMs: 100 });
    const started = Date.now();
    const events = await collect(provider.stream(request(adapter)));
    expect(Date.now() - started).toBeLessThan(5_000);
    const stalls = events.filter((e) => e.type === "stream-stalled");
    expect(stalls.length).toBeGreaterThanOrEqual(2);
    expect(stalls[0]).toMatchObject({ type: "stream-stalled", timeoutMs: 400 });
    const retries = events.filter((e) => e.type === "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]?.type === "retry" && retries[0].reason).toMatch(
      /sent nothing for [\d.]+ s \(idle timeout\)/,
    );
    const message = endMessage(events);
    expect(message.stop_reason).toBe("end_turn");
    expect(shape(message.content)).toEqual([{ type: "text", text: TEXT }]);
    expect(s.requests.map((r) => r.fault)).toEqual(["stall", undefined]);
  });

  it("a stream that goes silent after content ends as a retryable network error with what came, not retried", async () => {
    const s = await simulator({ textChunk: 4 });
    s.enqueue(
      adapter.turn({
        content: [{ type: "text", text: LONG_TEXT }],
        fault: { kind: "stall", afterBytes: 3000 },
      }),
    );
    const provider = adapter.provider(s, { ...instant, idleTimeoutMs: 200, stallWarningMs: 0 });
    const events = await collect(provider.stream(request(adapter)));
    expect(events.filter((e) => e.type === "stream-stalled")).toEqual([]);
    const message = endMessage(events);
    expect(message.stop_reason).toBe("error");
    expect(message.incomplete).toBe(true);
    expect(message.error).toMatchObject({ type: "network_error", retryable: true });
    const [block] = message.content;
    const text = block?.type === "text" ? block.text : "";
    expect(text.length).toBeGreaterThan(0);
    expect(LONG_TEXT.startsWith(text)).toBe(true);
    expect(s.requests).toHaveLength(1);
  });
});

describe.each(ADAPTERS.filter((a) => a.xml))("conformance: $name, malformed tags", (adapter) => {
  it("answers a malformed tag with an is_error result that names the problem", async () => {
    const s = await simulator();
    const log: string[] = [];
    const tag = '<tool_call nme="Weather">{"city": "Paris"}</tool_call>';
    s.enqueue(
      { content: [{ type: "text", text: `Checking.\n${tag}` }] },
      { content: [{ type: "text", text: "Let me write that properly." }] },
    );
    const agent = runAgent({
      provider: adapter.provider(s),
      model: adapter.model,
      tools: [weatherTool(log)],
      messages: [{ role: "user", content: [{ type: "text", text: "What is the weather?" }] }],
    });
    let result: AgentResult | undefined;
    for await (const event of agent) if (event.type === "agent-end") result = event;
    expect(log).toEqual([]);
    expect(result?.reason).toBe("end_turn");
    const [res] = toolResults(result as AgentResult);
    expect(res?.is_error).toBe(true);
    const verdict = JSON.parse(res?.content as string);
    expect(verdict.INVALID_JSON).toBe(tag);
    expect(verdict.error).toContain('unknown attribute "nme"');
    // The model reads the reason in its next turn, inside the tool_result tag.
    const [sent] = adapter.results(s.requests[1]?.body);
    expect(sent?.isError).toBe(true);
    expect(sent?.text).toContain('unknown attribute \\"nme\\"');
  });
});

const saveDefinition = {
  name: "Save",
  description: "Saves a note.",
  input_schema: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path", "content"],
  },
};

// biome-ignore lint/suspicious/noExplicitAny: wire bodies are read in each protocol's terms
type Body = any;

/** What each wire sends back of the reasoning, read from the request after the thinking turn. */
const REASONING_SENT_BACK: Record<string, (body: Body) => void> = {
  anthropic: (body) => {
    // Thinking goes back first in the assistant turn, with its signature, unchanged.
    expect(body.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: THOUGHT,
      signature: "sig-abc",
    });
  },
  "openai-chat": (body) => {
    // Chat Completions takes no reasoning back (reasoning_content is output only): it is dropped.
    expect(JSON.stringify(body.messages)).not.toContain(THOUGHT);
    expect(body.messages.find((m: Body) => m.role === "assistant").tool_calls).toHaveLength(1);
  },
  "openai-responses": (body) => {
    // The reasoning item goes back as received, encrypted content and summary, before the function call.
    const [reasoning, fn] = body.input.slice(1, 3);
    expect(reasoning).toMatchObject({
      type: "reasoning",
      encrypted_content: "sig-abc",
      summary: [{ type: "summary_text", text: THOUGHT }],
    });
    expect(reasoning.id).toMatch(/^rs_/);
    expect(fn.type).toBe("function_call");
  },
  gemini: (body) => {
    // The thought signature goes back on the part that carried it (the first functionCall).
    const parts: Body[] = body.contents[1].parts;
    const fn = parts.find((p) => p.functionCall);
    expect(fn.thoughtSignature).toBe("sig-abc");
  },
  "xml over openai-chat": (body) => {
    expect(JSON.stringify(body.messages)).not.toContain(THOUGHT);
  },
  "xml over anthropic": (body) => {
    expect(body.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: THOUGHT,
      signature: "sig-abc",
    });
  },
};
