import { describe, expect, it } from "vitest";
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { StreamEvent } from "../stream/stream-event.js";
import {
  errorTurn,
  messageEvents,
  type Script,
  TEST_USAGE,
  TestProvider,
  textTurn,
  toolTurn,
  toolUse,
} from "../testing/test-provider.js";
import type { AgentEvent } from "./agent-event.js";
import { checkTranscript } from "./check-transcript.js";
import { USER_REJECTED_MESSAGE, USER_STOPPED_MESSAGE } from "./permission.js";
import { type AgentResult, type RunAgentOptions, runAgent, runAgentToEnd } from "./run-agent.js";
import { INTERRUPTED_MESSAGE } from "./run-tools.js";
import type { Tool, ToolContext, ToolOutput } from "./tool.js";
import { ToolState, toolStateKey } from "./tool-state.js";

const COUNT = toolStateKey("count", () => ({ n: 0 }));

const prompt: Message = { role: "user", content: [{ type: "text", text: "fix the bug" }] };

function makeTool(
  name: string,
  run: (input: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput>,
  extra: Partial<Tool> = {},
): Tool<never> {
  return { name, description: `${name} tool`, inputSchema: { type: "object" }, run, ...extra } as Tool<never>;
}

type Options = Omit<RunAgentOptions, "provider" | "model" | "messages"> & { messages?: Message[] };

/** Runs the loop over scripted calls; every run's transcript must pass the checker, whatever happened. */
async function run(scripts: Script[], options: Options = {}, onEvent?: (event: AgentEvent) => void) {
  const provider = new TestProvider(scripts);
  const events: AgentEvent[] = [];
  const agent = runAgent({ provider, model: "test-model", messages: [prompt], ...options });
  let result: AgentResult;
  for (;;) {
    const next = await agent.next();
    if (next.done) {
      result = next.value;
      break;
    }
    events.push(next.value);
    onEvent?.(next.value);
  }
  expect(events.at(-1)).toEqual({ type: "agent-end", ...result, agentPath: options.agentPath ?? [] });
  expect(events.filter((e) => e.type === "agent-end")).toHaveLength(1);
  // Invariant 1: whatever happened, a run that started from a valid transcript hands back a valid one.
  if (checkTranscript(options.messages ?? [prompt]).length === 0)
    expect(checkTranscript(result.messages)).toEqual([]);
  return { provider, events, result };
}

const results = (message: Message | undefined): ToolResultBlock[] =>
  (message?.content ?? []).filter((b): b is ToolResultBlock => b.type === "tool_result");

/** A call whose stream was cut at max_tokens inside its input. */
function cutCall(id: string, name: string, raw: string): ToolUseBlock {
  return { type: "tool_use", id, name, input: {}, raw_input: raw, input_status: "incomplete" };
}

describe("runAgent", () => {
  it("runs a single text turn and re-yields each provider event with its turn, as it arrives", async () => {
    const { provider, events, result } = await run([textTurn("Hello there")], { system: "You are terse." });
    expect(result.reason).toBe("end_turn");
    expect(result.messages).toHaveLength(2);
    expect(result.messages[1]).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Hello there" }],
    });
    expect(result.lastMessage).toBe(result.messages[1]);
    expect(events.map((e) => e.type)).toEqual([
      "turn-start",
      "message-start",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "message-end",
      "message",
      "agent-end",
    ]);
    expect(events.filter((e) => e.type === "text-delta")).toEqual([
      { type: "text-delta", id: "0", delta: "Hello ", turn: 1, agentPath: [] },
      { type: "text-delta", id: "0", delta: "there", turn: 1, agentPath: [] },
    ]);
    const request = provider.requests[0];
    expect(request).toEqual({
      model: "test-model",
      system: [{ type: "text", text: "You are terse." }],
      tools: [],
      messages: [prompt],
      maxTokens: 8192,
    });
  });

  it("does not mutate the caller's messages array", async () => {
    const messages = [prompt];
    await run([textTurn("ok")], { messages });
    expect(messages).toEqual([prompt]);
  });

  it("runs a tool turn, sends the result back, and ends on the final answer", async () => {
    const read = makeTool("Read", async (input) => `contents of ${String(input.path)}`, {
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      eagerInputStreaming: true,
    });
    const { provider, events, result } = await run(
      [toolTurn([toolUse("t1", "Read", { path: "a.ts" })], "Let me look."), textTurn("Found it.")],
      { tools: [read], temperature: 0, thinkingBudget: 1024, providerOptions: { test: { x: 1 } } },
    );
    expect(result.reason).toBe("end_turn");
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(result.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: "contents of a.ts" }],
    });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]?.messages).toEqual(result.messages.slice(0, 3));
    expect(provider.requests[1]?.tools).toEqual([
      { name: "Read", description: "Read tool", input_schema: read.inputSchema, eager_input_streaming: true },
    ]);
    expect(provider.requests[1]).toMatchObject({
      temperature: 0,
      thinkingBudget: 1024,
      providerOptions: { test: { x: 1 } },
    });
    const loopEvents = events.filter(
      (e) => !("id" in e) && e.type !== "message-end" && e.type !== "message-start",
    );
    expect(loopEvents.map((e) => `${e.type}@${"turn" in e ? e.turn : ""}`)).toEqual([
      "turn-start@1",
      "message@1",
      "tool-call-start@1",
      "tool-call-end@1",
      "message@1",
      "turn-start@2",
      "message@2",
      "agent-end@",
    ]);
  });

  it("runs the calls of a turn concurrently and answers them in one message, in call order", {
    timeout: 5000,
  }, async () => {
    let resolveA!: () => void;
    let resolveB!: () => void;
    const aStarted = new Promise<void>((r) => {
      resolveA = r;
    });
    const bStarted = new Promise<void>((r) => {
      resolveB = r;
    });
    const a = makeTool("A", async () => {
      resolveA();
      await bStarted;
      await new Promise((r) => setImmediate(r)); // A ends after B
      return "a";
    });
    const b = makeTool("B", async () => {
      resolveB();
      await aStarted;
      return "b";
    });
    const { result } = await run([toolTurn([toolUse("1", "A"), toolUse("2", "B")]), textTurn("done")], {
      tools: [a, b],
    });
    expect(results(result.messages[2]).map((r) => [r.tool_use_id, r.content])).toEqual([
      ["1", "a"],
      ["2", "b"],
    ]);
    expect(result.messages[2]?.content).toHaveLength(2);
  });

  it("answers a schema failure, an unknown tool, a throw and a deny as is_error results, and goes on", async () => {
    const sideEffects: string[] = [];
    const write = makeTool(
      "Write",
      async (input) => {
        sideEffects.push(String(input.path));
        return "written";
      },
      { inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
    );
    const boom = makeTool("Boom", async () => {
      throw new Error("disk on fire");
    });
    const calls = [
      toolUse("1", "Write", { path: 3 }),
      toolUse("2", "Delete", { path: "x" }),
      toolUse("3", "Boom"),
      toolUse("4", "Write", { path: "secret.txt" }),
      toolUse("5", "Write", { path: "ok.txt" }),
    ];
    const { provider, result } = await run([toolTurn(calls), textTurn("I see.")], {
      tools: [write, boom],
      canUseTool: (_tool, input) =>
        input.path === "secret.txt"
          ? { behavior: "deny", message: "Denied: secret.txt is protected" }
          : { behavior: "allow" },
    });
    expect(sideEffects).toEqual(["ok.txt"]);
    expect(results(result.messages[2]).map((r) => [r.content, r.is_error ?? false])).toEqual([
      ["Invalid input for Write: /path must be string", true],
      ["Unknown tool: Delete. Available tools: Write, Boom", true],
      ["disk on fire", true],
      ["Denied: secret.txt is protected", true],
      ["written", false],
    ]);
    expect(result.reason).toBe("end_turn");
    expect(provider.requests).toHaveLength(2);
  });

  it("a deny with interrupt stops the turn: no further model call, the calls not started get Claude Code's stop text", async () => {
    const ran: string[] = [];
    const write = makeTool("Write", async (input) => {
      ran.push(String(input.path));
      return "written";
    });
    const slow = makeTool("Slow", async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      ran.push(String(input.path));
      return "slow done";
    });
    const seq = makeTool("Seq", async () => "never", { sequential: true });
    const asked: string[] = [];
    let withdrawn: AbortSignal | undefined;
    const calls = [
      toolUse("1", "Slow", { path: "running.txt" }),
      toolUse("2", "Write", { path: "refused.txt" }),
      toolUse("3", "Write", { path: "waiting.txt" }),
      toolUse("4", "Seq", { path: "later.txt" }),
    ];
    const { provider, result, events } = await run([toolTurn(calls), textTurn("never sent")], {
      tools: [write, slow, seq],
      canUseTool: async (_tool, input, context) => {
        asked.push(String(input.path));
        if (input.path === "refused.txt")
          return { behavior: "deny", message: USER_REJECTED_MESSAGE, interrupt: true };
        if (input.path === "waiting.txt") {
          // A question still waiting for its turn on screen: it is withdrawn once the user stopped the turn.
          withdrawn = context.signal;
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
          return { behavior: "deny", message: "withdrawn" };
        }
        return { behavior: "allow" };
      },
    });
    expect(result.reason).toBe("denied");
    expect(provider.requests).toHaveLength(1);
    expect(withdrawn?.aborted).toBe(true);
    // The call the user approved and that is already running finishes; nothing else runs; the later batch is
    // never asked about.
    expect(ran).toEqual(["running.txt"]);
    expect(asked).toEqual(["running.txt", "refused.txt", "waiting.txt"]);
    expect(results(result.messages[2]).map((r) => [r.tool_use_id, r.content, r.is_error ?? false])).toEqual([
      ["1", "slow done", false],
      ["2", USER_REJECTED_MESSAGE, true],
      ["3", USER_STOPPED_MESSAGE, true],
      ["4", USER_STOPPED_MESSAGE, true],
    ]);
    expect(result.messages).toHaveLength(3);
    expect(events.filter((e) => e.type === "tool-call-end")).toHaveLength(4);
  });

  it("a sub-agent whose call the user refused with interrupt stops its parent's turn too", async () => {
    const task = makeTool("Task", async (input, context) => {
      const child = await context.spawn?.({ prompt: String(input.prompt) } as never);
      return `child ended: ${child?.reason}`;
    });
    const other = makeTool("Other", async () => "never", { sequential: true });
    const { provider, result } = await run(
      [
        toolTurn([
          toolUse("t", "Task", { prompt: "refused" }),
          toolUse("s", "Task", { prompt: "sibling" }),
          toolUse("o", "Other"),
        ]),
        textTurn("no"),
      ],
      {
        tools: [task, other],
        spawn: (request, { signal }) =>
          (async function* (): AsyncGenerator<AgentEvent, AgentResult> {
            yield* [];
            // The sibling runs on until the turn is stopped: its signal must abort then.
            if (request.prompt === "sibling") {
              await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
              return { reason: "aborted", messages: [], usage: TEST_USAGE };
            }
            await new Promise((resolve) => setTimeout(resolve, 10));
            return { reason: "denied", messages: [], usage: TEST_USAGE };
          })(),
      },
    );
    expect(result.reason).toBe("denied");
    expect(provider.requests).toHaveLength(1);
    expect(results(result.messages[2]).map((r) => r.content)).toEqual([
      "child ended: denied",
      "child ended: aborted",
      USER_STOPPED_MESSAGE,
    ]);
  });

  it("never runs a call whose input is invalid JSON: the result is the INVALID_JSON wrapper", async () => {
    let ran = false;
    const write = makeTool("Write", async () => {
      ran = true;
      return "written";
    });
    const raw = '{"path": "a.ts", "content": celsius}';
    const bad: ToolUseBlock = {
      type: "tool_use",
      id: "t1",
      name: "Write",
      input: {},
      raw_input: raw,
      input_status: "invalid",
    };
    const { result } = await run([messageEvents([bad], "tool_use"), textTurn("Sorry, retrying.")], {
      tools: [write],
    });
    expect(ran).toBe(false);
    expect(result.messages[2]?.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "t1",
        content: JSON.stringify({ INVALID_JSON: raw }),
        is_error: true,
      },
    ]);
    expect(result.reason).toBe("end_turn");
  });

  it("retries a turn cut at max_tokens inside a tool call with max_tokens doubled, dropping the cut message", async () => {
    let runs = 0;
    const write = makeTool("Write", async () => {
      runs++;
      return "written";
    });
    const cut = messageEvents(
      [{ type: "text", text: "Writing." }, cutCall("t1", "Write", '{"content": "abc')],
      "max_tokens",
    );
    const { provider, events, result } = await run(
      [cut, toolTurn([toolUse("t2", "Write", { content: "abcdef" })]), textTurn("Done.")],
      { tools: [write], maxTokens: 1000 },
    );
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([1000, 2000, 1000]);
    expect(provider.requests[1]?.messages).toEqual(provider.requests[0]?.messages);
    const warning = events.find((e) => e.type === "warning");
    expect(warning).toMatchObject({ type: "warning", turn: 1, code: "max_tokens_retry" });
    expect(runs).toBe(1);
    expect(result.messages).toHaveLength(4);
    expect(JSON.stringify(result.messages)).not.toContain("t1");
    expect(result.usage.output_tokens).toBe(3 * TEST_USAGE.output_tokens); // the dropped call was paid for
  });

  it("caps the retried max_tokens", async () => {
    const cut = messageEvents([cutCall("t1", "Write", "{")], "max_tokens");
    const { provider } = await run([cut, textTurn("ok")], {
      maxTokens: 40_000,
      maxTokensPolicy: { maxTokensCap: 50_000 },
    });
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([40_000, 50_000]);
  });

  describe("when the cut turn cannot be retried, keeps it, answers its calls with is_error and goes on", () => {
    const write = () => {
      const ran: string[] = [];
      const tool = makeTool("Write", async (input) => {
        ran.push(String(input.path));
        return "written";
      });
      return { ran, tool };
    };
    const cutTurn = (id: string) =>
      messageEvents(
        [
          toolUse(`${id}-done`, "Write", { path: "small.txt" }),
          cutCall(id, "Write", '{"path": "big.txt", "content": "'),
        ],
        "max_tokens",
      );

    it("policy off", async () => {
      const { ran, tool } = write();
      const { provider, result } = await run([cutTurn("t1"), textTurn("I will write smaller pieces.")], {
        tools: [tool],
        maxTokens: 1000,
        maxTokensPolicy: { retry: false },
      });
      expect(ran).toEqual([]); // not even the complete call of the cut message
      expect(provider.requests.map((r) => r.maxTokens)).toEqual([1000, 1000]);
      expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      const [done, cutResult] = results(result.messages[2]);
      expect(done).toMatchObject({ tool_use_id: "t1-done", is_error: true });
      expect(done?.content).toContain("none of them was run");
      expect(cutResult).toMatchObject({ tool_use_id: "t1", is_error: true });
      expect(cutResult?.content).toContain(
        "cut at max_tokens (1000) before the input of this Write call was complete",
      );
      expect(cutResult?.content).toContain("Write smaller pieces");
      expect(provider.requests[1]?.messages).toEqual(result.messages.slice(0, 3));
      expect(result.reason).toBe("end_turn");
    });

    it("already retried once", async () => {
      const { ran, tool } = write();
      const { provider, events, result } = await run([cutTurn("t1"), cutTurn("t2"), textTurn("ok")], {
        tools: [tool],
        maxTokens: 1000,
      });
      expect(ran).toEqual([]);
      expect(provider.requests.map((r) => r.maxTokens)).toEqual([1000, 2000, 1000]);
      expect(events.filter((e) => e.type === "warning")).toHaveLength(1);
      expect(results(result.messages[2]).map((r) => r.tool_use_id)).toEqual(["t2-done", "t2"]);
      expect(results(result.messages[2])[1]?.content).toContain("max_tokens (2000)");
    });

    it("already at the cap", async () => {
      const { tool } = write();
      const { provider } = await run([cutTurn("t1"), textTurn("ok")], {
        tools: [tool],
        maxTokens: 64_000,
      });
      expect(provider.requests.map((r) => r.maxTokens)).toEqual([64_000, 64_000]);
      expect(provider.requests[1]?.messages).toHaveLength(3);
    });

    it("no turn left for a retry", async () => {
      const { tool } = write();
      const { provider, result } = await run([cutTurn("t1")], { tools: [tool], maxTurns: 1 });
      expect(provider.requests).toHaveLength(1);
      expect(result.reason).toBe("max_turns");
      expect(results(result.messages[2]).map((r) => r.tool_use_id)).toEqual(["t1-done", "t1"]);
    });
  });

  it("stops with max_tokens when the cut is not inside a tool call", async () => {
    const { result } = await run([textTurn("A very long ans", "max_tokens")]);
    expect(result.reason).toBe("max_tokens");
    expect(result.messages).toHaveLength(2);
  });

  it("continues after pause_turn by sending the assistant message back, with no new user message", async () => {
    const paused = messageEvents([{ type: "text", text: "Searching the web..." }], "pause_turn");
    const { provider, result } = await run([paused, textTurn("Here is what I found.")]);
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(result.reason).toBe("end_turn");
    expect(result.messages).toHaveLength(3);
  });

  it("stops at maxTurns model calls with a valid transcript", async () => {
    const loopForever: Script = (_request, call) => toolTurn([toolUse(`t${call}`, "Ping")]);
    const ping = makeTool("Ping", async () => "pong");
    const { provider, result } = await run([loopForever, loopForever, loopForever], {
      tools: [ping],
      maxTurns: 2,
    });
    expect(provider.requests).toHaveLength(2);
    expect(result.reason).toBe("max_turns");
    expect(result.messages.at(-1)?.role).toBe("user");
    expect(checkTranscript(result.messages)).toEqual([]);
  });

  it("aborted mid-stream: keeps what arrived, answers every tool_use as interrupted, sends nothing more", async () => {
    const controller = new AbortController();
    let ran = false;
    const read = makeTool("Read", async () => {
      ran = true;
      return "x";
    });
    const never = new Promise<void>(() => {});
    const script: Script = [
      { type: "message-start" },
      { type: "tool-input-start", id: "0", toolUseId: "t1", name: "Read" },
      { type: "tool-input-delta", id: "0", delta: "{}", strings: [] },
      { type: "tool-input-end", id: "0", block: toolUse("t1", "Read") },
      { type: "tool-input-start", id: "1", toolUseId: "t2", name: "Read" },
      { type: "tool-input-delta", id: "1", delta: '{"pa', strings: [] },
      { pause: never },
    ];
    const { provider, result } = await run(
      [script, textTurn("unreachable")],
      { tools: [read], signal: controller.signal },
      (event) => {
        if (event.type === "tool-input-delta" && event.id === "1") controller.abort();
      },
    );
    expect(ran).toBe(false);
    expect(provider.requests).toHaveLength(1);
    expect(result.reason).toBe("aborted");
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(result.messages[1]?.content.map((b) => b.type === "tool_use" && (b.input_status ?? "ok"))).toEqual(
      ["ok", "incomplete"],
    );
    expect(results(result.messages[2])).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: INTERRUPTED_MESSAGE, is_error: true },
      { type: "tool_result", tool_use_id: "t2", content: INTERRUPTED_MESSAGE, is_error: true },
    ]);
  });

  it("aborted mid-stream before any content: nothing is appended", async () => {
    const controller = new AbortController();
    const script: Script = [{ type: "message-start" }, { pause: new Promise(() => {}) }];
    const { result } = await run([script], { signal: controller.signal }, (event) => {
      if (event.type === "message-start") controller.abort();
    });
    expect(result.reason).toBe("aborted");
    expect(result.messages).toEqual([prompt]);
  });

  it("aborted during thinking or before any text: keeps no block the API rejects (unsigned thinking, empty text)", async () => {
    // Regression: Ctrl-C while the model was thinking kept `[thinking]` with no signature; every wire drops such a
    // block, so the kept assistant message went out empty and every later request of the session got a 400.
    const signed: ContentBlock = { type: "thinking", thinking: "Plan.", signature: "sig" };
    const cases: Array<[events: StreamEvent[], kept: ContentBlock[]]> = [
      [
        [
          { type: "thinking-start", id: "0" },
          { type: "thinking-delta", id: "0", delta: "Pla" },
        ],
        [],
      ],
      [
        [
          { type: "thinking-end", id: "0", thinking: "Plan.", signature: "sig" },
          { type: "text-start", id: "1" },
        ],
        [signed],
      ],
      [
        [
          { type: "thinking-end", id: "0", thinking: "Plan.", signature: "sig" },
          { type: "text-start", id: "1" },
          { type: "text-delta", id: "1", delta: "Hal" },
        ],
        [signed, { type: "text", text: "Hal" }],
      ],
    ];
    for (const [events, kept] of cases) {
      const controller = new AbortController();
      const last = events.at(-1);
      const script: Script = [{ type: "message-start" }, ...events, { pause: new Promise(() => {}) }];
      const { result } = await run([script], { signal: controller.signal }, (event) => {
        if (event.type === last?.type) controller.abort();
      });
      expect(result.reason).toBe("aborted");
      expect(result.messages.slice(1).map((m) => m.content)).toEqual(kept.length > 0 ? [kept] : []);
    }
  });

  it("aborted mid-tool: the running tool sees the abort, every call is answered, the results are appended", async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const slow = makeTool("Slow", (_input, { signal }) => {
      controller.abort();
      return new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          sawAbort = true;
          resolve("stopped");
        });
        if (signal.aborted) {
          sawAbort = true;
          resolve("stopped");
        }
      });
    });
    const quick = makeTool("Quick", async () => "quick", { sequential: true });
    const logged: Message[] = [];
    const { provider, result } = await run(
      [toolTurn([toolUse("t1", "Slow"), toolUse("t2", "Quick")]), textTurn("unreachable")],
      { tools: [slow, quick], signal: controller.signal, onMessage: (m) => void logged.push(m) },
    );
    expect(sawAbort).toBe(true);
    expect(provider.requests).toHaveLength(1);
    expect(result.reason).toBe("aborted");
    expect(results(result.messages[2]).map((r) => [r.tool_use_id, r.content, r.is_error])).toEqual([
      ["t1", INTERRUPTED_MESSAGE, true],
      ["t2", INTERRUPTED_MESSAGE, true],
    ]);
    expect(logged).toEqual(result.messages); // the interrupted results are logged too
  });

  it("an abort before the first call sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const { provider, result } = await run([textTurn("x")], { signal: controller.signal });
    expect(provider.requests).toHaveLength(0);
    expect(result.reason).toBe("aborted");
  });

  it("a provider error ends the run with reason error; the failed message is not appended", async () => {
    const { result } = await run(
      [toolTurn([toolUse("t1", "Ping")]), errorTurn("Overloaded", "Partial ans")],
      {
        tools: [makeTool("Ping", async () => "pong")],
      },
    );
    expect(result.reason).toBe("error");
    expect(result.error).toEqual({ type: "api_error", message: "Overloaded" });
    expect(result.messages).toHaveLength(3);
    expect(result.lastMessage).toMatchObject({
      stop_reason: "error",
      content: [{ type: "text", text: "Partial ans" }],
    });
  });

  it("a provider that breaks its contract (throws, or ends without message-end) still ends the run cleanly", async () => {
    const throwing: TestProvider = new TestProvider([]);
    throwing.stream = async function* () {
      yield { type: "message-start" };
      throw new Error("socket hang up");
    };
    const thrown = await runAgentToEnd({ provider: throwing, model: "m", messages: [prompt] });
    expect(thrown.reason).toBe("error");
    expect(thrown.error).toEqual({
      type: "provider_error",
      message: "The provider stream threw: socket hang up",
    });

    const { result } = await run([[{ type: "message-start" }]]);
    expect(result.error?.message).toBe("The provider stream ended without a message-end event");
  });

  it("what prepareRequest returns is what is sent and what is stored", async () => {
    const reminder: ContentBlock = {
      type: "text",
      text: "<system-reminder>today is Monday</system-reminder>",
    };
    const logged: Message[] = [];
    const seen: Array<{ turn: number; count: number }> = [];
    const prepareRequest = (request: ModelRequest, { turn }: { turn: number }): ModelRequest => {
      seen.push({ turn, count: request.messages.length });
      const last = request.messages.at(-1) as Message;
      const messages = [...request.messages.slice(0, -1), { ...last, content: [...last.content, reminder] }];
      return { ...request, system: [{ type: "text", text: "prepared" }], messages };
    };
    const { provider, result } = await run([toolTurn([toolUse("t1", "Ping")]), textTurn("done")], {
      tools: [makeTool("Ping", async () => "pong")],
      prepareRequest,
      onMessage: (m) => void logged.push(m),
    });
    expect(seen).toEqual([
      { turn: 1, count: 1 },
      { turn: 2, count: 3 },
    ]);
    expect(provider.requests[0]?.system).toEqual([{ type: "text", text: "prepared" }]);
    expect(provider.requests[0]?.messages[0]?.content).toEqual([...prompt.content, reminder]);
    // Turn 1's change is kept: turn 2 extends exactly what turn 1 sent.
    expect(provider.requests[1]?.messages.slice(0, 1)).toEqual(provider.requests[0]?.messages);
    expect(provider.requests[1]?.messages[2]?.content.at(-1)).toEqual(reminder);
    expect(result.messages.slice(0, 3)).toEqual(provider.requests[1]?.messages);
    expect(logged).toEqual(result.messages);
  });

  it("refuses to let prepareRequest remove history, and refuses an invalid transcript it returns", async () => {
    const removed = await run([textTurn("x")], {
      messages: [prompt, { role: "assistant", content: [{ type: "text", text: "a" }] }, prompt],
      prepareRequest: (request) => ({ ...request, messages: request.messages.slice(1) }),
    });
    expect(removed.provider.requests).toHaveLength(0);
    expect(removed.result.error?.message).toContain("prepareRequest removed messages");

    const broken = await run([textTurn("x")], {
      prepareRequest: (request) => ({
        ...request,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "ghost", content: "?" }] }],
      }),
    });
    expect(broken.provider.requests).toHaveLength(0);
    expect(broken.result.error?.type).toBe("invalid_transcript");
  });

  it("a prepareRequest that throws ends the run with an error", async () => {
    const { provider, result } = await run([textTurn("x")], {
      prepareRequest: () => {
        throw new Error("no git");
      },
    });
    expect(provider.requests).toHaveLength(0);
    expect(result.error).toEqual({ type: "prepare_request_error", message: "prepareRequest failed: no git" });
  });

  it("calls onMessage with every new message before the next request is sent", async () => {
    const logged: Message[] = [];
    const checkLog =
      (expected: number): Script =>
      () => {
        expect(logged).toHaveLength(expected);
        return expected === 1 ? toolTurn([toolUse("t1", "Ping")]) : textTurn("done");
      };
    const { result } = await run([checkLog(1), checkLog(3)], {
      tools: [makeTool("Ping", async () => "pong")],
      onMessage: async (message) => {
        await new Promise((r) => setImmediate(r));
        logged.push(message);
      },
    });
    expect(logged).toEqual(result.messages);
  });

  it("does not report the caller's history, only its new prompt", async () => {
    const logged: Message[] = [];
    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "earlier" }] },
      { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
      prompt,
    ];
    const { result } = await run([textTurn("ok")], {
      messages: history,
      onMessage: (m) => void logged.push(m),
    });
    expect(logged).toEqual(result.messages.slice(2));
  });

  it("stops, without sending, when onMessage fails: a message that cannot be logged is never sent", async () => {
    let calls = 0;
    const { provider, result } = await run([toolTurn([toolUse("t1", "Ping")]), textTurn("done")], {
      tools: [makeTool("Ping", async () => "pong")],
      onMessage: (message) => {
        if (message.role === "assistant") throw new Error("disk full");
        calls++;
      },
    });
    expect(provider.requests).toHaveLength(1);
    expect(result.reason).toBe("error");
    expect(result.error).toEqual({ type: "on_message_error", message: "onMessage failed: disk full" });
    expect(calls).toBeGreaterThan(0);
  });

  it("sums usage over all turns", async () => {
    const big = {
      input_tokens: 100,
      output_tokens: 50,
      cache_creation_input_tokens: 7,
      cache_read_input_tokens: 9,
    };
    const { result } = await run([toolTurn([toolUse("t1", "Ping")]), textTurn("done", "end_turn", big)], {
      tools: [makeTool("Ping", async () => "pong")],
    });
    expect(result.usage).toEqual({
      input_tokens: 110,
      output_tokens: 55,
      cache_creation_input_tokens: 8,
      cache_read_input_tokens: 11,
    });
  });

  it("checks the transcript before every request: an invalid one is never sent, and the error names the problem", async () => {
    const dangling: Message[] = [
      prompt,
      { role: "assistant", content: [toolUse("t9", "Ping")] },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ];
    const { provider, result } = await run([textTurn("x")], { messages: dangling });
    expect(provider.requests).toHaveLength(0);
    expect(result.reason).toBe("error");
    expect(result.error?.type).toBe("invalid_transcript");
    expect(result.error?.message).toBe(
      "mitsu bug: refusing to send an invalid transcript: messages[1]: tool_use t9 has no tool_result in messages[2]",
    );
  });

  it("answers tool_use blocks of a refusal without running them", async () => {
    let ran = false;
    const ping = makeTool("Ping", async () => {
      ran = true;
      return "pong";
    });
    const { result } = await run([messageEvents([toolUse("t1", "Ping")], "refusal")], { tools: [ping] });
    expect(ran).toBe(false);
    expect(result.reason).toBe("refusal");
    expect(results(result.messages[2])).toEqual([
      {
        type: "tool_result",
        tool_use_id: "t1",
        content: "Not run: the response ended with a refusal.",
        is_error: true,
      },
    ]);
  });

  it("ends with stop_sequence, and drops an empty answer with a warning", async () => {
    expect((await run([textTurn("a", "stop_sequence")])).result.reason).toBe("stop_sequence");
    const empty = await run([messageEvents([], "end_turn")]);
    expect(empty.result.reason).toBe("end_turn");
    expect(empty.result.messages).toEqual([prompt]);
    expect(empty.events.find((e) => e.type === "warning")).toMatchObject({ code: "empty_response" });
  });

  it("rejects two tools with the same name before sending anything", async () => {
    const ping = makeTool("Ping", async () => "pong");
    const { provider, result } = await run([textTurn("x")], { tools: [ping, ping] });
    expect(provider.requests).toHaveLength(0);
    expect(result.error).toEqual({ type: "invalid_tools", message: "Two tools are named Ping" });
  });

  it("passes the signal and liveInput to the provider and shares toolState between calls", async () => {
    const controller = new AbortController();
    const toolState = new ToolState();
    const counter = makeTool("Count", async (_input, { state }) => {
      state.get(COUNT).n++;
      return "ok";
    });
    const { provider } = await run(
      [toolTurn([toolUse("1", "Count")]), toolTurn([toolUse("2", "Count")]), textTurn("x")],
      {
        tools: [counter],
        signal: controller.signal,
        liveInput: false,
        toolState,
      },
    );
    expect(provider.callOptions[0]).toEqual({ signal: controller.signal, liveInput: false });
    expect(toolState.get(COUNT).n).toBe(2);
  });

  it("runAgentToEnd resolves with the agent-end payload", async () => {
    const provider = new TestProvider([textTurn("hi")]);
    const result = await runAgentToEnd({ provider, model: "m", messages: [prompt] });
    expect(result.reason).toBe("end_turn");
    expect(result.messages).toHaveLength(2);
    expect(result).not.toHaveProperty("type");
  });
});
