import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message, ToolResultBlock, ToolUseBlock } from "../messages/index.js";
import { TestProvider, textTurn, toolTurn, toolUse } from "../testing/test-provider.js";
import type { AgentEvent } from "./agent-event.js";
import type { Journal } from "./journal.js";
import { USER_REJECTED_MESSAGE } from "./permission.js";
import { type RunAgentOptions, runAgent } from "./run-agent.js";
import type { Tool } from "./tool.js";

const prompt: Message = { role: "user", content: [{ type: "text", text: "count twice" }] };

async function collect(options: RunAgentOptions) {
  const events: AgentEvent[] = [];
  const run = runAgent(options);
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

function counter() {
  const tool = {
    name: "Count",
    description: "count",
    inputSchema: { type: "object" },
    runs: 0,
    async run() {
      tool.runs++;
      return `count ${tool.runs}`;
    },
  };
  return tool;
}

/** Records every call's value in order; `replay()` returns a journal that answers from the record alone. */
function recordingJournal() {
  const models: AssistantMessage[] = [];
  const tools = new Map<string, ToolResultBlock>();
  const journal: Journal = {
    async model(_info, call) {
      const message = await call();
      models.push(structuredClone(message));
      return message;
    },
    async tool(info, call) {
      const result = await call();
      tools.set(info.block.id, structuredClone(result));
      return result;
    },
  };
  const replay = (): Journal => {
    let next = 0;
    return {
      model: async () => structuredClone(models[next++] as AssistantMessage),
      tool: async (info) => structuredClone(tools.get(info.block.id) as ToolResultBlock),
    };
  };
  return { journal, replay, models, tools };
}

const script = () => [toolTurn([toolUse("a", "Count"), toolUse("b", "Count")]), textTurn("counted")];

describe("journal (the durable-run seam)", () => {
  it("a recorded run replays with zero provider requests and zero tool runs, to the same transcript", async () => {
    const recorder = recordingJournal();
    const tool = counter();
    const live = await collect({
      provider: new TestProvider(script()),
      model: "m",
      tools: [tool as unknown as Tool<never>],
      messages: [prompt],
      journal: recorder.journal,
    });
    expect(live.result.reason).toBe("end_turn");
    expect(tool.runs).toBe(2);
    expect(recorder.models).toHaveLength(2);
    // Through a journal the model's stream still reaches the event stream as it arrives.
    expect(live.events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(0);

    const silent = new TestProvider([]);
    const replayTool = counter();
    const replayed = await collect({
      provider: silent,
      model: "m",
      tools: [replayTool as unknown as Tool<never>],
      messages: [prompt],
      journal: recorder.replay(),
    });
    expect(silent.requests).toHaveLength(0);
    expect(replayTool.runs).toBe(0);
    expect(replayed.result.messages).toEqual(live.result.messages);
    expect(replayed.result.reason).toBe("end_turn");
  });

  it("a recorded turn the user stopped (deny with interrupt) replays to the same stop, with no model call", async () => {
    const recorder = recordingJournal();
    const live = await collect({
      provider: new TestProvider(script()),
      model: "m",
      tools: [counter() as unknown as Tool<never>],
      messages: [prompt],
      journal: recorder.journal,
      canUseTool: () => ({ behavior: "deny", message: USER_REJECTED_MESSAGE, interrupt: true }),
    });
    expect(live.result.reason).toBe("denied");
    const silent = new TestProvider([]);
    const replayed = await collect({
      provider: silent,
      model: "m",
      tools: [counter() as unknown as Tool<never>],
      messages: [prompt],
      journal: recorder.replay(),
    });
    expect(silent.requests).toHaveLength(0);
    expect(replayed.result.reason).toBe("denied");
    expect(replayed.result.messages).toEqual(live.result.messages);
  });

  it("a journal that throws ends the run with journal_error (model) or an is_error result (tool)", async () => {
    const failingModel = await collect({
      provider: new TestProvider([textTurn("x")]),
      model: "m",
      messages: [prompt],
      journal: {
        model: async () => {
          throw new Error("store down");
        },
        tool: (_info, call) => call(),
      },
    });
    expect(failingModel.result.error).toEqual({
      type: "journal_error",
      message: "The model journal failed: store down",
    });

    const tool = counter();
    const failingTool = await collect({
      provider: new TestProvider(script()),
      model: "m",
      tools: [tool as unknown as Tool<never>],
      messages: [prompt],
      journal: {
        model: (_info, call) => call(),
        tool: async () => {
          throw new Error("store down");
        },
      },
    });
    const results = failingTool.result.messages[2]?.content as ToolResultBlock[];
    expect(results.map((r) => r.content)).toEqual([
      "The tool journal failed: store down",
      "The tool journal failed: store down",
    ]);
  });
});

describe("tool log hooks (each result logged as it finishes)", () => {
  it("onToolStart comes right before run; onToolResult as each call settles, before the turn's message", async () => {
    const order: string[] = [];
    let releaseSlow: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const tool = {
      name: "T",
      description: "t",
      inputSchema: { type: "object" },
      async run(input: { wait?: boolean }) {
        order.push(`run ${input.wait ? "slow" : "fast"}`);
        if (input.wait) await slow;
        return "ok";
      },
    } as unknown as Tool<never>;
    const denied = { ...tool, name: "D" } as Tool<never>;
    await collect({
      provider: new TestProvider([
        toolTurn([toolUse("s", "T", { wait: true }), toolUse("f", "T"), toolUse("d", "D")]),
        textTurn("done"),
      ]),
      model: "m",
      tools: [tool, denied],
      messages: [prompt],
      canUseTool: (t) => (t.name === "D" ? { behavior: "deny", message: "no" } : { behavior: "allow" }),
      onToolStart: (block: ToolUseBlock) => {
        order.push(`start ${block.id}`);
      },
      onToolResult: (block: ToolUseBlock) => {
        order.push(`result ${block.id}`);
        if (block.id === "f") releaseSlow();
      },
      onMessage: (message) => {
        if (message.role === "user" && message.content.some((b) => b.type === "tool_result"))
          order.push("message");
      },
    });
    const at = (entry: string) => order.indexOf(entry);
    expect(at("start s")).toBeLessThan(at("run slow"));
    expect(at("start f")).toBeLessThan(at("run fast"));
    expect(order).not.toContain("start d"); // denied: never started
    expect(order.filter((e) => e.startsWith("result") || e === "message")).toEqual([
      "result d",
      "result f",
      "result s",
      "message",
    ]);
  });

  it("a call whose start cannot be logged does not run", async () => {
    const tool = counter();
    const { result } = await collect({
      provider: new TestProvider([toolTurn([toolUse("a", "Count")]), textTurn("ok")]),
      model: "m",
      tools: [tool as unknown as Tool<never>],
      messages: [prompt],
      onToolStart: () => {
        throw new Error("disk full");
      },
    });
    expect(tool.runs).toBe(0);
    const [answer] = (result.messages[2]?.content ?? []) as ToolResultBlock[];
    expect(answer?.content).toBe("Not run: the session log could not record the call: disk full");
  });
});

describe("warnings from prepareRequest", () => {
  it("become warning events right after the request is prepared, before it is sent", async () => {
    const { events } = await collect({
      provider: new TestProvider([textTurn("hi")]),
      model: "m",
      messages: [prompt],
      prepareRequest: (request, info) => {
        info.warn("prefix-broken", "the cache prefix broke");
        return request;
      },
    });
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(["warning", "turn-start"]);
    expect(events[0]).toEqual({
      type: "warning",
      turn: 1,
      agentPath: [],
      code: "prefix-broken",
      message: "the cache prefix broke",
    });
  });
});
