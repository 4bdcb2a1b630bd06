import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import type { ToolResultBlock, ToolUseBlock } from "../messages/index.js";
import { toolUse } from "../testing/test-provider.js";
import type { AgentEvent } from "./agent-event.js";
import type { CanUseTool } from "./permission.js";
import { batchCalls, INTERRUPTED_MESSAGE, type RunToolsOptions, runTools } from "./run-tools.js";
import { type Tool, type ToolContext, ToolError, type ToolOutput } from "./tool.js";
import { ToolState, toolStateKey } from "./tool-state.js";

const SEEN = toolStateKey("seen", () => ({ n: 0 }));

const anyInput = { type: "object" };

function makeTool(
  name: string,
  run: (input: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput>,
  extra: Partial<Tool> = {},
): Tool<never> {
  return { name, description: `${name} tool`, inputSchema: anyInput, run, ...extra } as Tool<never>;
}

async function drain(options: Omit<RunToolsOptions, "turn" | "signal" | "state"> & Partial<RunToolsOptions>) {
  const events: AgentEvent[] = [];
  const run = runTools({ turn: 1, signal: new AbortController().signal, state: new ToolState(), ...options });
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, results: next.value };
    events.push(next.value);
  }
}

/** A promise with its resolve function exposed. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("batchCalls", () => {
  it("groups consecutive ordinary calls and isolates each sequential call, in call order", () => {
    const tools = new Map<string, Tool<never>>([
      ["R", makeTool("R", async () => "")],
      ["S", makeTool("S", async () => "", { sequential: true })],
    ]);
    const calls = ["R", "R", "S", "R", "S", "S", "X"].map((name, i) => toolUse(`c${i}`, name));
    expect(batchCalls(calls, tools)).toEqual([[0, 1], [2], [3], [4], [5], [6]]);
  });
});

describe("runTools", () => {
  it("runs the calls of a turn concurrently and returns the results in call order", {
    timeout: 5000,
  }, async () => {
    // Each tool waits until the other has started: this finishes only if they run at the same time.
    const started = { a: deferred(), b: deferred() };
    const a = makeTool("A", async () => {
      started.a.resolve();
      await started.b.promise;
      await tick();
      await tick(); // A finishes after B
      return "from a";
    });
    const b = makeTool("B", async () => {
      started.b.resolve();
      await started.a.promise;
      return "from b";
    });
    const { events, results } = await drain({ calls: [toolUse("1", "A"), toolUse("2", "B")], tools: [a, b] });
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "1", content: "from a" },
      { type: "tool_result", tool_use_id: "2", content: "from b" },
    ]);
    expect(
      events.map((e) =>
        e.type === "tool-call-start" || e.type === "tool-call-end" ? `${e.type}:${e.block.id}` : e.type,
      ),
    ).toEqual(["tool-call-start:1", "tool-call-start:2", "tool-call-end:2", "tool-call-end:1"]);
  });

  it("runs a sequential tool alone, after the calls before it and before the calls after it", async () => {
    const log: string[] = [];
    let active = 0;
    const slow = (name: string) => async () => {
      active++;
      log.push(`start ${name} (active ${active})`);
      for (let i = 0; i < 3; i++) await tick();
      log.push(`end ${name}`);
      active--;
      return name;
    };
    const r = makeTool("R", async (input) => slow(String(input.n))());
    const s = makeTool("S", async (input) => slow(String(input.n))(), { sequential: true });
    const calls = [
      toolUse("1", "R", { n: "r1" }),
      toolUse("2", "R", { n: "r2" }),
      toolUse("3", "S", { n: "s3" }),
      toolUse("4", "R", { n: "r4" }),
    ];
    const { results } = await drain({ calls, tools: [r, s] });
    expect(results.map((x) => x.content)).toEqual(["r1", "r2", "s3", "r4"]);
    expect(log).toEqual([
      "start r1 (active 1)",
      "start r2 (active 2)",
      "end r1",
      "end r2",
      "start s3 (active 1)",
      "end s3",
      "start r4 (active 1)",
      "end r4",
    ]);
  });

  it("turns every failure into an is_error result with a clear message", async () => {
    const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    const tools = [
      makeTool("Read", async () => "read", { inputSchema: schema }),
      makeTool("Throws", async () => {
        throw new ToolError("file not found: a.ts");
      }),
      makeTool("ThrowsPlain", async () => {
        throw new TypeError("x is undefined");
      }),
      makeTool("ThrowsString", async () => {
        throw "just a string";
      }),
      makeTool("SaysError", async () => ({ content: "exit code 2", isError: true })),
      makeTool("SaysOk", async () => ({ content: [{ type: "text", text: "fine" }], isError: false })),
      makeTool("SaysEmptyError", async () => ({ content: "", isError: true })),
      makeTool("Garbage", async () => 42 as unknown as ToolOutput),
    ];
    const calls = [
      toolUse("1", "Read", { path: 7 }),
      toolUse("2", "Nope"),
      toolUse("3", "Throws"),
      toolUse("4", "ThrowsPlain"),
      toolUse("5", "ThrowsString"),
      toolUse("6", "SaysError"),
      toolUse("7", "SaysOk"),
      toolUse("8", "SaysEmptyError"),
      toolUse("9", "Garbage"),
    ];
    const { results } = await drain({ calls, tools });
    const names = tools.map((t) => t.name).join(", ");
    expect(results).toEqual<ToolResultBlock[]>([
      {
        type: "tool_result",
        tool_use_id: "1",
        content: "Invalid input for Read: /path must be string",
        is_error: true,
      },
      {
        type: "tool_result",
        tool_use_id: "2",
        content: `Unknown tool: Nope. Available tools: ${names}`,
        is_error: true,
      },
      { type: "tool_result", tool_use_id: "3", content: "file not found: a.ts", is_error: true },
      { type: "tool_result", tool_use_id: "4", content: "x is undefined", is_error: true },
      { type: "tool_result", tool_use_id: "5", content: "just a string", is_error: true },
      { type: "tool_result", tool_use_id: "6", content: "exit code 2", is_error: true },
      { type: "tool_result", tool_use_id: "7", content: [{ type: "text", text: "fine" }] },
      {
        type: "tool_result",
        tool_use_id: "8",
        content: "SaysEmptyError failed without a message.",
        is_error: true,
      },
      {
        type: "tool_result",
        tool_use_id: "9",
        content: "Garbage returned a value that is not a tool output (a bug in the tool).",
        is_error: true,
      },
    ]);
  });

  it("answers unparseable and cut input with the INVALID_JSON wrapper and never runs the tool", async () => {
    let ran = false;
    const tool = makeTool("Write", async () => {
      ran = true;
      return "written";
    });
    const raw = '{"path": "a.ts", "content": "say "hi"\\n"}';
    const invalid: ToolUseBlock = { ...toolUse("1", "Write"), raw_input: raw, input_status: "invalid" };
    const cut: ToolUseBlock = {
      ...toolUse("2", "Write"),
      raw_input: '{"path": "a',
      input_status: "incomplete",
    };
    const { results } = await drain({ calls: [invalid, cut], tools: [tool] });
    expect(ran).toBe(false);
    expect(results[0]).toEqual({
      type: "tool_result",
      tool_use_id: "1",
      content: JSON.stringify({ INVALID_JSON: raw }),
      is_error: true,
    });
    expect(results[0]?.content).toBe(
      '{"INVALID_JSON":"{\\"path\\": \\"a.ts\\", \\"content\\": \\"say \\"hi\\"\\\\n\\"}"}',
    );
    expect(results[1]?.content).toBe(JSON.stringify({ INVALID_JSON: '{"path": "a' }));
  });

  it("puts an adapter's protocol error beside the INVALID_JSON text, so the model reads what to fix", async () => {
    let ran = false;
    const tool = makeTool("Read", async () => {
      ran = true;
      return "read";
    });
    const raw = '<tool_call nme="Read">{"file_path": "/a"}</tool_call>';
    const reason = 'unknown attribute "nme" (the only attribute is name)';
    const malformed: ToolUseBlock = {
      ...toolUse("1", "Read"),
      raw_input: raw,
      input_status: "invalid",
      meta: { protocolError: reason },
    };
    // A reason on a cut call is not a protocol error of a finished call: the plain wrapper.
    const cut: ToolUseBlock = {
      ...toolUse("2", "Read"),
      raw_input: '{"file_path": "/a',
      input_status: "incomplete",
      meta: { protocolError: reason },
    };
    const { results } = await drain({ calls: [malformed, cut], tools: [tool] });
    expect(ran).toBe(false);
    expect(results[0]).toEqual({
      type: "tool_result",
      tool_use_id: "1",
      content: JSON.stringify({ INVALID_JSON: raw, error: reason }),
      is_error: true,
    });
    expect(JSON.parse(results[0]?.content as string)).toEqual({ INVALID_JSON: raw, error: reason });
    expect(results[1]?.content).toBe(JSON.stringify({ INVALID_JSON: '{"file_path": "/a' }));
  });

  it("asks canUseTool: a deny is the result and the tool has no side effect; an allow may edit the input", async () => {
    const written: string[] = [];
    const schema = { type: "object", properties: { text: { type: "string" } } };
    const tool = makeTool(
      "Write",
      async (input) => {
        written.push(String(input.text));
        return "ok";
      },
      { inputSchema: schema },
    );
    const asked: Array<{ input: Record<string, unknown>; id: string }> = [];
    const canUseTool: CanUseTool = (_tool, input, { toolUseId }) => {
      asked.push({ input, id: toolUseId });
      if (input.text === "deny me") return { behavior: "deny", message: "The user said no." };
      if (input.text === "edit me") return { behavior: "allow", input: { text: "edited" } };
      if (input.text === "break me") return { behavior: "allow", input: { text: 3 } };
      if (input.text === "throw") throw new Error("prompt closed");
      return { behavior: "allow" };
    };
    const calls = ["deny me", "edit me", "break me", "throw", "plain"].map((text, i) =>
      toolUse(String(i), "Write", { text }),
    );
    const { results } = await drain({ calls, tools: [tool], canUseTool });
    expect(asked.map((a) => a.id)).toEqual(["0", "1", "2", "3", "4"]);
    expect(written.sort()).toEqual(["edited", "plain"]);
    expect(results.map((r) => [r.content, r.is_error])).toEqual([
      ["The user said no.", true],
      ["ok", undefined],
      ["Invalid input for Write: /text must be string", true],
      ["The permission check for Write failed: prompt closed", true],
      ["ok", undefined],
    ]);
  });

  it("is not asked about calls whose input is invalid", async () => {
    let asked = 0;
    const tool = makeTool("T", async () => "ok", { inputSchema: { type: "object", required: ["x"] } });
    await drain({
      calls: [toolUse("1", "T")],
      tools: [tool],
      canUseTool: () => {
        asked++;
        return { behavior: "allow" };
      },
    });
    expect(asked).toBe(0);
  });

  it("passes the signal, the call id and the shared state to the tool", async () => {
    const state = new ToolState();
    const controller = new AbortController();
    const contexts: ToolContext[] = [];
    const tool = makeTool("T", async (_input, context) => {
      contexts.push(context);
      context.state.get(SEEN).n++;
      return "ok";
    });
    await drain({
      calls: [toolUse("a", "T"), toolUse("b", "T")],
      tools: [tool],
      state,
      signal: controller.signal,
    });
    expect(contexts.map((c) => c.toolUseId)).toEqual(["a", "b"]);
    // Each call has a signal of its own, fed by the turn's (see SignalFanOut).
    expect(contexts.every((c) => c.signal !== controller.signal && c.state === state)).toBe(true);
    expect(contexts[0]?.signal).not.toBe(contexts[1]?.signal);
    expect(state.get(SEEN).n).toBe(2);
  });

  it("on abort, answers running and unstarted calls as interrupted at once and keeps finished results", async () => {
    const controller = new AbortController();
    const hung = deferred();
    let sawAbort = false;
    let laterRan = false;
    const quick = makeTool("Quick", async () => "quick done");
    // Ignores the abort for as long as the test likes: the runner must not wait for it.
    const stuck = makeTool("Stuck", async (_input, { signal }) => {
      signal.addEventListener("abort", () => {
        sawAbort = true;
      });
      await tick(); // Quick finishes first
      controller.abort();
      await hung.promise;
      return "too late";
    });
    const later = makeTool(
      "Later",
      async () => {
        laterRan = true;
        return "later";
      },
      { sequential: true },
    );
    const calls = [toolUse("1", "Quick"), toolUse("2", "Stuck"), toolUse("3", "Later")];
    const { events, results } = await drain({
      calls,
      tools: [quick, stuck, later],
      signal: controller.signal,
    });
    hung.resolve();
    expect(sawAbort).toBe(true);
    expect(laterRan).toBe(false);
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "1", content: "quick done" },
      { type: "tool_result", tool_use_id: "2", content: INTERRUPTED_MESSAGE, is_error: true },
      { type: "tool_result", tool_use_id: "3", content: INTERRUPTED_MESSAGE, is_error: true },
    ]);
    expect(INTERRUPTED_MESSAGE).toContain("interrupted by the user");
    // Every call is opened and closed, also the one that never started.
    const ends = events.filter((e) => e.type === "tool-call-end").map((e) => e.block.id);
    const starts = events.filter((e) => e.type === "tool-call-start").map((e) => e.block.id);
    expect(starts.sort()).toEqual(["1", "2", "3"]);
    expect(ends.sort()).toEqual(["1", "2", "3"]);
  });

  it("adds one abort listener per turn, not one per call, and removes it (no MaxListenersExceededWarning)", async () => {
    const signal = new AbortController().signal;
    const counts: number[] = [];
    const tool = makeTool("T", async () => {
      counts.push(getEventListeners(signal, "abort").length);
      await tick();
      return "ok";
    });
    const calls = Array.from({ length: 12 }, (_, i) => toolUse(String(i), "T"));
    await drain({ calls, tools: [tool], signal });
    expect(counts).toEqual(Array(12).fill(1));
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("aborts each running call's own signal when the turn's signal aborts, with its reason", async () => {
    const controller = new AbortController();
    const seen: unknown[] = [];
    const tool = makeTool("T", async (_input, context) => {
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
      seen.push(context.signal.reason);
      return "stopped";
    });
    const run = drain({
      calls: [toolUse("a", "T"), toolUse("b", "T")],
      tools: [tool],
      signal: controller.signal,
    });
    await tick();
    controller.abort("user stop");
    await run;
    await tick();
    expect(seen).toEqual(["user stop", "user stop"]);
  });

  it("reports the duration of each call", async () => {
    const { events } = await drain({ calls: [toolUse("1", "T")], tools: [makeTool("T", async () => "ok")] });
    const end = events.find((e) => e.type === "tool-call-end");
    expect(end?.type === "tool-call-end" && end.durationMs >= 0).toBe(true);
  });
});

describe("a tool's check", () => {
  it("runs before the permission question; a failed check is the result, and nobody is asked", async () => {
    const asked: string[] = [];
    const ran: string[] = [];
    const canUseTool: CanUseTool = (tool) => {
      asked.push(tool.name);
      return { behavior: "allow" };
    };
    const checked = makeTool(
      "Checked",
      async (input) => {
        ran.push(String(input.ok));
        return "done";
      },
      {
        check: async (input: Record<string, unknown>) => {
          if (input.ok !== true) throw new ToolError("cannot succeed: not ok");
        },
      } as Partial<Tool>,
    );
    const { results } = await drain({
      calls: [toolUse("c1", "Checked", { ok: false }), toolUse("c2", "Checked", { ok: true })],
      tools: [checked],
      canUseTool,
    });
    expect(results.map((r) => [r.is_error === true, r.content])).toEqual([
      [true, "cannot succeed: not ok"],
      [false, "done"],
    ]);
    expect(asked).toEqual(["Checked"]);
    expect(ran).toEqual(["true"]);
  });
});

describe("a tool's progress", () => {
  it("becomes tool-progress events between the call's start and end, in order; a late report is ignored", async () => {
    let report: ((text: string) => void) | undefined;
    const tool = makeTool("P", async (_input, context) => {
      report = context.progress;
      context.progress?.("step 1\n");
      context.progress?.(""); // nothing to show: no event
      await tick();
      context.progress?.("step 2\n");
      return "done";
    });
    const { events } = await drain({ calls: [toolUse("p1", "P")], tools: [tool] });
    // After the result: neither an event nor a push into the closed queue (which would throw).
    expect(() => report?.("late\n")).not.toThrow();
    expect(events.map((e) => (e.type === "tool-progress" ? `${e.toolUseId}:${e.text}` : e.type))).toEqual([
      "tool-call-start",
      "p1:step 1\n",
      "p1:step 2\n",
      "tool-call-end",
    ]);
    expect(events[1]).toEqual({
      type: "tool-progress",
      turn: 1,
      agentPath: [],
      toolUseId: "p1",
      text: "step 1\n",
    });
  });

  it("of concurrent calls carries each call's id", async () => {
    const both = deferred();
    let started = 0;
    const tool = makeTool("P", async (input, context) => {
      if (++started === 2) both.resolve();
      await both.promise;
      context.progress?.(`from ${String(input.n)}`);
      return "ok";
    });
    const calls = [toolUse("a", "P", { n: 1 }), toolUse("b", "P", { n: 2 })];
    const { events } = await drain({ calls, tools: [tool] });
    const progress = events.flatMap((e) => (e.type === "tool-progress" ? [[e.toolUseId, e.text]] : []));
    expect(progress.sort()).toEqual([
      ["a", "from 1"],
      ["b", "from 2"],
    ]);
  });
});
