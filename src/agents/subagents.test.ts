import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../loop/agent-event.js";
import { checkTranscript } from "../loop/check-transcript.js";
import { type CanUseTool, USER_REJECTED_MESSAGE } from "../loop/permission.js";
import { type AgentResult, runAgent } from "../loop/run-agent.js";
import { INTERRUPTED_MESSAGE } from "../loop/run-tools.js";
import type { Tool } from "../loop/tool.js";
import type { Message } from "../messages/index.js";
import { createPermissionChecker } from "../permissions/index.js";
import { createAnthropicProvider } from "../providers/anthropic/anthropic-provider.js";
import type { LoggedRequest, SimMark, SimTurn, Simulator } from "../simulator/index.js";
import { startSimulator } from "../simulator/index.js";
import { createBuiltinTools } from "../tools/create-builtin-tools.js";
import type { AgentDefinition } from "./agent-definition.js";
import { BUILTIN_AGENTS } from "./builtin-agents.js";
import { createSubagentSpawner, type SubagentTranscriptInfo } from "./create-subagent-spawner.js";
import { createTaskTool } from "./task-tool.js";

// The parent and its sub-agents, end to end: the real loop, the real Anthropic adapter, the loopback simulator.
let root: string;
let sim: Simulator;
/** Each generation-end mark, with how many sub-agent requests the simulator had logged (received) by then. */
let marks: Array<SimMark & { childrenLogged: number }>;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "mitsu-agents-")));
  await mkdir(join(root, "ws", "src"), { recursive: true });
  await writeFile(join(root, "ws", "src", "auth.ts"), "export function login() { /* the auth code */ }\n");
  await writeFile(join(root, "ws", "CLAUDE.md"), "Always answer in English.\n");
  marks = [];
  sim = await startSimulator({
    onMark: (mark) => marks.push({ ...mark, childrenLogged: sim.requests.filter(isChild).length }),
  });
});
afterEach(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const MODEL = "claude-sonnet-4-5";
const prompt = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const task = (id: string, subagent_type: string, text: string, description = "look around") => ({
  type: "tool_use" as const,
  id,
  name: "Task",
  input: { description, prompt: text, subagent_type },
});

interface Setup {
  canUseTool?: CanUseTool;
  agents?: readonly AgentDefinition[];
  transcripts?: Array<{ info: SubagentTranscriptInfo; messages: Message[] }>;
  maxTurns?: number;
}

function setup(options: Setup = {}) {
  const cwd = join(root, "ws");
  const provider = createAnthropicProvider({ apiKey: "test", baseURL: sim.url });
  const builtins = createBuiltinTools({ cwd, env: { PATH: process.env.PATH } }) as Tool<never>[];
  const tools: Tool<never>[] = [
    ...builtins,
    createTaskTool({
      agents: options.agents ?? BUILTIN_AGENTS,
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
    }) as unknown as Tool<never>,
  ];
  const spawn = createSubagentSpawner({
    tools,
    parent: { provider, providerName: "anthropic", model: MODEL, maxOutputTokens: 8192 },
    cwd,
    home: join(root, "home"),
    env: {},
    environment: (model) => `# Environment\nWorking folder: ${cwd}\nModel: ${model}`,
    ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
    transcript: (info) => {
      const entry = { info, messages: [] as Message[] };
      options.transcripts?.push(entry);
      return {
        onMessage: (message) => {
          entry.messages.push(message);
        },
      };
    },
  });
  return { provider, tools, spawn, cwd };
}

async function run(
  s: ReturnType<typeof setup>,
  text: string,
  extra: { signal?: AbortSignal; onEvent?: (e: AgentEvent) => void; canUseTool?: CanUseTool } = {},
) {
  const events: AgentEvent[] = [];
  const gen = runAgent({
    provider: s.provider,
    model: MODEL,
    system: "You are the parent.",
    tools: s.tools,
    messages: [prompt(text)],
    spawn: s.spawn,
    ...(extra.signal ? { signal: extra.signal } : {}),
    ...(extra.canUseTool ? { canUseTool: extra.canUseTool } : {}),
  });
  let result: AgentResult;
  for (;;) {
    const next = await gen.next();
    if (next.done) {
      result = next.value;
      break;
    }
    events.push(next.value);
    extra.onEvent?.(next.value);
  }
  return { events, result };
}

const isChild = (request: LoggedRequest) =>
  JSON.stringify(request.body.system ?? "").includes("sub-agent") ||
  JSON.stringify(request.body.system ?? "").includes("You are Explore");
const firstText = (request: LoggedRequest): string => {
  const content = request.body.messages[0].content;
  return typeof content === "string" ? content : content.map((b: { text?: string }) => b.text ?? "").join("");
};
const resultsOf = (request: LoggedRequest) =>
  request.body.messages
    .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type: string }) => b.type === "tool_result");

describe("a sub-agent through the simulator", () => {
  it("runs its own conversation; the parent's next request holds only its final answer (isolation)", async () => {
    sim.enqueue(
      { content: [task("toolu_task", "Explore", "Where is the auth code? Report the file.")] },
      { content: [{ type: "tool_use", id: "toolu_grep", name: "Grep", input: { pattern: "auth code" } }] },
      { content: [{ type: "text", text: "The auth code is in src/auth.ts (login)." }] },
      { content: [{ type: "text", text: "It is in src/auth.ts." }] },
    );
    const transcripts: NonNullable<Setup["transcripts"]> = [];
    const { result, events } = await run(setup({ transcripts }), "find the auth code");
    expect(result.reason).toBe("end_turn");
    expect(sim.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);

    // The child's first request: its own system (the Explore prompt, then the environment), only its own
    // tools (read-only; no Task), and one user message: the prompt, with the project instructions as a reminder.
    const child = sim.requests[1]!.body;
    const systemText = child.system.map((b: { text: string }) => b.text).join("\n");
    expect(systemText).toContain("You are Explore");
    expect(systemText).toContain("# Environment");
    expect(systemText).not.toContain("You are the parent.");
    expect(child.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Bash", "Grep", "Glob"]);
    expect(child.messages).toHaveLength(1);
    const childPrompt = firstText(sim.requests[1]!);
    expect(childPrompt).toContain("Where is the auth code? Report the file.");
    expect(childPrompt).toContain("Always answer in English.");
    expect(childPrompt).not.toContain("find the auth code");

    // The parent's next request: its first two messages and one result, the child's final text and a stats line.
    const parentNext = sim.requests[3]!.body;
    expect(parentNext.messages).toHaveLength(3);
    const [taskResult] = resultsOf(sim.requests[3]!);
    expect(taskResult.tool_use_id).toBe("toolu_task");
    expect(taskResult.is_error).toBeUndefined();
    const text = typeof taskResult.content === "string" ? taskResult.content : taskResult.content[0].text;
    expect(text).toMatch(
      /^The auth code is in src\/auth\.ts \(login\)\.\n\n\[Explore: 2 turns, 1 tool call, [\d,]+ tokens, \d+\.\d s\]$/,
    );
    expect(JSON.stringify(parentNext)).not.toContain("the auth code */");
    expect(JSON.stringify(result.messages)).not.toContain("toolu_grep");

    // The child's events reached the parent's stream, tagged with the Task call's id.
    const childEvents = events.filter((e) => e.agentPath.length > 0);
    expect(childEvents.every((e) => e.agentPath.join() === "toolu_task")).toBe(true);
    expect(childEvents.some((e) => e.type === "tool-call-end" && e.block.name === "Grep")).toBe(true);

    // Its own transcript, linked by the Task call's id, valid and complete.
    expect(transcripts).toHaveLength(1);
    expect(transcripts[0]!.info).toMatchObject({ toolUseId: "toolu_task", agent: "Explore" });
    expect(transcripts[0]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(checkTranscript(transcripts[0]!.messages)).toEqual([]);
  });

  it("runs several Task calls of one turn concurrently: all four requests are in flight before any completes", async () => {
    const answer = (request: LoggedRequest): SimTurn => ({
      content: [{ type: "text", text: `done: ${/part [A-D]/.exec(firstText(request))?.[0]}` }],
      latencyMs: 150,
    });
    sim.enqueue(
      {
        content: ["A", "B", "C", "D"].map((x) => task(`toolu_${x}`, "Explore", `part ${x}`, `part ${x}`)),
      },
      answer,
      answer,
      answer,
      answer,
      { content: [{ type: "text", text: "All four done." }] },
    );
    const { result } = await run(setup(), "do four things");
    expect(result.reason).toBe("end_turn");
    const childIndexes = sim.requests.map((r, i) => (isChild(r) ? i : -1)).filter((i) => i >= 0);
    expect(childIndexes).toEqual([1, 2, 3, 4]);
    // From the simulator's log: when the first sub-agent answer was generated, all four requests had arrived.
    const firstChildEnd = marks.find((m) => isChild(sim.requests[m.request]!));
    expect(firstChildEnd?.childrenLogged).toBe(4);
    const results = resultsOf(sim.requests[5]!);
    expect(results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual([
      "toolu_A",
      "toolu_B",
      "toolu_C",
      "toolu_D",
    ]);
    for (const [i, x] of ["A", "B", "C", "D"].entries()) {
      expect(JSON.stringify(results[i].content)).toContain(`done: part ${x}`);
    }
  });

  it("a second Explore run in the same session reads its system and tools from the prompt cache", async () => {
    sim.enqueue(
      { content: [task("toolu_1", "Explore", "first question")] },
      { content: [{ type: "text", text: "first answer" }] },
      { content: [task("toolu_2", "Explore", "second, different question")] },
      { content: [{ type: "text", text: "second answer" }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const { result } = await run(setup(), "ask twice");
    expect(result.reason).toBe("end_turn");
    const [first, second] = sim.requests.filter(isChild);
    expect(first!.usage!.cache_read_input_tokens).toBe(0);
    expect(first!.usage!.cache_creation_input_tokens).toBeGreaterThan(0);
    // The second run's prefix (tools + system) was written by the first: it is read, not written again.
    expect(second!.usage!.cache_read_input_tokens).toBeGreaterThan(0);
    expect(second!.usage!.cache_read_input_tokens).toBeGreaterThanOrEqual(1024);
  });
});

const EMPTY_RULES = { allow: [], ask: [], deny: [] };
const callResult = (events: AgentEvent[], id: string) => {
  const end = events.find((e) => e.type === "tool-call-end" && e.block.id === id);
  return end?.type === "tool-call-end" ? end.result : undefined;
};
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

describe("permissions inside a sub-agent", () => {
  it("the parent's checker decides each call; a question names the sub-agent; without a terminal an ask is a denial", async () => {
    const s0 = setup();
    const asked: Array<{ display: string; agent?: string }> = [];
    const checker = createPermissionChecker({
      rules: EMPTY_RULES,
      mode: "default",
      cwd: s0.cwd,
      disallowedTools: ["Read(./src/**)"],
      ask: async (request) => {
        asked.push({ display: request.display, ...(request.agent ? { agent: request.agent } : {}) });
        return "deny";
      },
    });
    sim.enqueue(
      { content: [task("toolu_task", "general-purpose", "write a file", "write notes")] },
      {
        content: [
          { type: "tool_use", id: "c_write", name: "Write", input: { file_path: "notes.md", content: "x" } },
          { type: "tool_use", id: "c_read", name: "Read", input: { file_path: "src/auth.ts" } },
        ],
      },
      { content: [{ type: "text", text: "could not write" }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const s = setup({ canUseTool: checker });
    const { events } = await run(s, "go", { canUseTool: checker });
    expect(asked).toEqual([{ display: "Write(notes.md)", agent: "general-purpose: write notes" }]);
    expect(callResult(events, "c_write")).toMatchObject({ is_error: true });
    // The parent's deny rule holds for the child.
    expect(textOf(callResult(events, "c_read")?.content)).toContain("denied by the rule");

    // The same call without a terminal to ask: denied, with the print-mode message.
    const printChecker = createPermissionChecker({ rules: EMPTY_RULES, mode: "default", cwd: s0.cwd });
    sim.enqueue(
      { content: [task("toolu_task2", "general-purpose", "write a file")] },
      {
        content: [
          { type: "tool_use", id: "c_write2", name: "Write", input: { file_path: "n.md", content: "x" } },
        ],
      },
      { content: [{ type: "text", text: "could not" }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const second = await run(setup({ canUseTool: printChecker }), "go");
    expect(textOf(callResult(second.events, "c_write2")?.content)).toContain("without a terminal to ask");
  });

  it("no, and tell mitsu what to do instead, to a sub-agent's call stops the sub-agent and its parent", async () => {
    const s0 = setup();
    const checker = createPermissionChecker({
      rules: EMPTY_RULES,
      mode: "default",
      cwd: s0.cwd,
      ask: async () => "deny_and_stop",
    });
    sim.enqueue(
      { content: [task("toolu_task", "general-purpose", "write a file", "write notes")] },
      {
        content: [
          { type: "tool_use", id: "c_write", name: "Write", input: { file_path: "notes.md", content: "x" } },
        ],
      },
      { content: [{ type: "text", text: "never: the sub-agent goes on" }] },
      { content: [{ type: "text", text: "never: the parent goes on" }] },
    );
    const { events, result } = await run(setup({ canUseTool: checker }), "go", { canUseTool: checker });
    expect(result.reason).toBe("denied");
    expect(sim.requests).toHaveLength(2);
    expect(callResult(events, "c_write")).toMatchObject({ is_error: true, content: USER_REJECTED_MESSAGE });
    expect(textOf(callResult(events, "toolu_task")?.content)).toContain(
      "the user refused one of its tool calls",
    );
  });

  it("Explore may only look: writes and changing commands are refused before any question; reading commands go to the rules", async () => {
    const asked: string[] = [];
    const s0 = setup();
    const checker = createPermissionChecker({
      rules: EMPTY_RULES,
      mode: "bypassPermissions",
      cwd: s0.cwd,
      ask: async (request) => {
        asked.push(request.display);
        return "allow_once";
      },
    });
    sim.enqueue(
      { content: [task("toolu_x", "Explore", "look")] },
      {
        content: [
          { type: "tool_use", id: "e_write", name: "Write", input: { file_path: "x.md", content: "x" } },
          { type: "tool_use", id: "e_rm", name: "Bash", input: { command: "rm -rf src" } },
          { type: "tool_use", id: "e_redirect", name: "Bash", input: { command: "ls > listing.txt" } },
          { type: "tool_use", id: "e_ls", name: "Bash", input: { command: "ls src 2>/dev/null | wc -l" } },
        ],
      },
      { content: [{ type: "text", text: "looked" }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const { events } = await run(setup({ canUseTool: checker }), "go");
    // Write is not among Explore's tools at all; Bash is, for commands that change nothing.
    expect(textOf(callResult(events, "e_write")?.content)).toContain("Unknown tool: Write");
    for (const id of ["e_rm", "e_redirect"]) {
      expect(textOf(callResult(events, id)?.content)).toContain("This agent is read-only");
    }
    expect(callResult(events, "e_ls")).toMatchObject({ content: expect.stringContaining("1") });
    expect(callResult(events, "e_ls")?.is_error).toBeUndefined();
    expect(asked).toEqual([]);
  });
});

describe("abort and failure", () => {
  it("aborting the run stops every running sub-agent: each Task is interrupted and every transcript stays valid", async () => {
    const held = (): SimTurn => ({ content: [{ type: "text", text: "too late" }], latencyMs: 5_000 });
    sim.enqueue(
      { content: ["A", "B", "C"].map((x) => task(`toolu_${x}`, "Explore", `part ${x}`)) },
      held,
      held,
      held,
    );
    const controller = new AbortController();
    const transcripts: NonNullable<Setup["transcripts"]> = [];
    const s = setup({ transcripts });
    // Ctrl-C once all three sub-agents' requests are at the simulator (each held there for 5 s).
    const poll = setInterval(() => {
      if (sim.requests.filter(isChild).length === 3) controller.abort();
    }, 10);
    const started = performance.now();
    const { result, events } = await run(s, "go", { signal: controller.signal });
    clearInterval(poll);
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(result.reason).toBe("aborted");
    for (const x of ["A", "B", "C"]) {
      expect(callResult(events, `toolu_${x}`)).toEqual({
        type: "tool_result",
        tool_use_id: `toolu_${x}`,
        content: INTERRUPTED_MESSAGE,
        is_error: true,
      });
    }
    expect(checkTranscript(result.messages)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const t of transcripts) expect(checkTranscript(t.messages)).toEqual([]);
  });

  it("a sub-agent that fails (provider error, max turns) gives an is_error result with its last text and why", async () => {
    sim.enqueue(
      {
        content: [
          task("toolu_fail", "Explore", "this fails"),
          task("toolu_long", "general-purpose", "this runs long"),
        ],
      },
      (request) =>
        firstText(request).includes("this fails")
          ? { content: [{ type: "text", text: "x" }], fault: { kind: "http", status: 400 } }
          : {
              content: [
                { type: "text", text: "Looking first." },
                { type: "tool_use", id: "g1", name: "Glob", input: { pattern: "**/*.ts" } },
              ],
            },
      (request) =>
        firstText(request).includes("this fails")
          ? { content: [{ type: "text", text: "x" }], fault: { kind: "http", status: 400 } }
          : {
              content: [
                { type: "text", text: "Looking first." },
                { type: "tool_use", id: "g1", name: "Glob", input: { pattern: "**/*.ts" } },
              ],
            },
      { content: [{ type: "text", text: "handled" }] },
    );
    const { events, result } = await run(setup({ maxTurns: 1 }), "go");
    expect(result.reason).toBe("end_turn");
    const failed = callResult(events, "toolu_fail");
    expect(failed?.is_error).toBe(true);
    expect(textOf(failed?.content)).toMatch(/^The Explore sub-agent did not finish: it failed: /);
    const long = callResult(events, "toolu_long");
    expect(long?.is_error).toBe(true);
    expect(textOf(long?.content)).toContain("it reached its limit of 1 model calls");
    expect(textOf(long?.content)).toContain("The last text it produced:\nLooking first.");
  });
});
