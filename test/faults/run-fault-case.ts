import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { sessionLogHooks } from "../../src/harness/session-log-hooks.js";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import { type AgentResult, runAgent } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import type { Message } from "../../src/messages/index.js";
import type { Provider } from "../../src/providers/provider.js";
import { loadSession, resumeSession, SessionLog } from "../../src/session/index.js";
import { type SimBlock, type SimTurn, type Simulator, startSimulator } from "../../src/simulator/index.js";
import type { ConformanceAdapter, Seams } from "../conformance/conformance-adapters.js";
import type { FaultCase } from "./fault-case.js";

/** What one case found: the faults it injected, the transcripts it checked, and what went wrong. */
export interface CaseReport {
  faults: number;
  transcripts: number;
  violations: string[];
}

/** Per-adapter resources shared by every case: a clean simulator for the next-request checks. */
export interface Bench {
  adapter: ConformanceAdapter;
  checker: Simulator;
  checkerProvider: Provider;
  /**
   * Whether duplicate tool ids are injected: only where the provider makes ids unique at decode time (probed
   * at the start, see `decodesUniqueIds`); elsewhere the suite says it left them out.
   */
  duplicateIds: boolean;
}

const SCHEMA = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
  additionalProperties: false,
} as const;

/** The seams that make thousands of retried runs fit in minutes: retries that wait for nothing. */
export const FAST_RETRY = {
  sleep: async () => {},
  retry: { maxRetries: 2, baseDelayMs: 0, maxDelayMs: 0, maxTotalMs: 60_000 },
} as Seams;

interface Ran {
  id: string;
  name: string;
  input: unknown;
}

function tools(ran: Ran[]): Tool[] {
  const record = (name: string, input: Record<string, unknown>, id: string) => ran.push({ id, name, input });
  const wait = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  return [
    {
      name: "echo",
      description: "Echoes its text.",
      inputSchema: SCHEMA,
      eagerInputStreaming: true,
      async run(input, context) {
        record("echo", input, context.toolUseId);
        return `echo ${String(input.text)}`;
      },
    },
    {
      name: "boom",
      description: "Always throws.",
      inputSchema: SCHEMA,
      async run(input, context) {
        record("boom", input, context.toolUseId);
        throw new Error(`boom ${String(input.text)}`);
      },
    },
    {
      name: "slow",
      description: "Answers after a few milliseconds.",
      inputSchema: SCHEMA,
      async run(input, context) {
        record("slow", input, context.toolUseId);
        await wait(3, context.signal);
        return "slow done";
      },
    },
    {
      name: "hang",
      description: "Hangs until aborted, or times out.",
      inputSchema: SCHEMA,
      async run(input, context) {
        record("hang", input, context.toolUseId);
        await wait(25, context.signal);
        if (context.signal.aborted) throw new Error("aborted");
        throw new Error("timed out after 25 ms");
      },
    },
  ];
}

/** The script of a case, and the inputs its calls carry (a tool may run only on one of them). */
function script(
  c: FaultCase,
  adapter: ConformanceAdapter,
  duplicateIds: boolean,
): { turns: SimTurn[]; inputs: unknown[]; faults: number } {
  const inputs: unknown[] = [];
  let faults = 0;
  const turns = c.turns.map((t, ti): SimTurn => {
    const content: SimBlock[] = [];
    if (t.text.length > 0) content.push({ type: "text", text: t.text });
    let lastId: string | undefined;
    t.calls.forEach((call, ci) => {
      const duplicate = duplicateIds && call.duplicateId && lastId !== undefined && adapter.callIds;
      const id = duplicate ? (lastId as string) : `toolu_${ti}_${ci}`;
      if (duplicate) faults++;
      lastId = id;
      const input = { text: `n${ti}.${ci}` };
      inputs.push(input);
      if (call.kind === "boom" || call.kind === "hang") faults++;
      // Invalid eager JSON is what the Anthropic API streams for an eager tool; other wires never send it.
      if (call.invalidJson && adapter.name === "anthropic") {
        faults++;
        content.push({ type: "tool_use", id, name: "echo", rawInput: `{"text": "n${ti}.${ci}` });
      } else content.push({ type: "tool_use", id, name: call.kind, input });
    });
    if (content.length === 0) content.push({ type: "text", text: "…" });
    if (t.fault) faults++;
    return adapter.turn({ content, ...(t.fault ? { fault: t.fault } : {}) });
  });
  turns.push(adapter.turn({ content: [{ type: "text", text: "All done." }] }));
  return { turns, inputs, faults };
}

/** Sends `messages` (plus a user turn where the model spoke last) to the clean simulator: does it accept them? */
async function nextRequestProblem(
  bench: Bench,
  messages: Message[],
  label: string,
): Promise<string | undefined> {
  const sent: Message[] =
    messages.at(-1)?.role === "assistant"
      ? [...messages, { role: "user", content: [{ type: "text", text: "Continue." }] }]
      : messages;
  bench.checker.enqueue({ content: [{ type: "text", text: "ok" }] });
  const before = bench.checker.requests.length;
  let streamError: string | undefined;
  try {
    for await (const event of bench.checkerProvider.stream({
      model: bench.adapter.model,
      system: [],
      tools: tools([]).map(({ name, description, inputSchema }) => ({
        name,
        description,
        input_schema: inputSchema,
      })),
      messages: sent,
      maxTokens: 1024,
    })) {
      if (event.type === "message-end" && event.message.stop_reason === "error") {
        streamError = JSON.stringify(event.message.error ?? event.message);
      }
    }
  } catch (error) {
    return `${label}: the next request threw: ${String(error)}`;
  }
  const request = bench.checker.requests[before];
  if (request === undefined)
    return `${label}: the next request was never sent (${streamError ?? "no error"})`;
  if (request.status !== 200) return `${label}: the simulator rejected the next request: ${request.error}`;
  if (streamError !== undefined) return `${label}: the next request failed: ${streamError}`;
  return undefined;
}

/** Runs one case against its adapter's simulator and checks every property. */
export async function runFaultCase(c: FaultCase, bench: Bench): Promise<CaseReport> {
  const { adapter } = bench;
  const sim = await startSimulator({ textChunk: 7, inputChunk: 5 });
  const violations: string[] = [];
  const { turns, inputs, faults: scripted } = script(c, adapter, bench.duplicateIds);
  let faults = scripted;
  sim.enqueue(...turns);
  const dir = mkdtempSync(join(tmpdir(), "mitsu-faults-"));
  const ran: Ran[] = [];
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  if (c.abortAtMs !== undefined) {
    faults++;
    timer = setTimeout(() => controller.abort(), c.abortAtMs);
  }
  const log = SessionLog.create(dir, { cwd: dir, model: adapter.model });
  let result: AgentResult | undefined;
  try {
    const prompt: Message = { role: "user", content: [{ type: "text", text: "Go." }] };
    const run = runAgent({
      provider: adapter.provider(sim, FAST_RETRY),
      model: adapter.model,
      tools: tools(ran) as Tool<never>[],
      messages: [prompt],
      maxTurns: 8,
      signal: controller.signal,
      ...sessionLogHooks(log),
    });
    for (;;) {
      const next = await run.next();
      if (next.done) {
        result = next.value;
        break;
      }
    }
  } catch (error) {
    violations.push(
      `runAgent threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  } finally {
    clearTimeout(timer);
    log.close();
  }
  // A fresh simulator per case: what a run left unserved must not leak into the next case.
  await sim.close();
  let transcripts = 0;
  try {
    if (result) {
      transcripts++;
      const problems = checkTranscript(result.messages);
      if (problems.length > 0) violations.push(`transcript: ${problems.join("; ")}`);
      const byId = new Map<string, number>();
      for (const r of ran) byId.set(r.id, (byId.get(r.id) ?? 0) + 1);
      for (const [id, n] of byId) if (n > 1) violations.push(`tool run ${n} times for id ${id}`);
      for (const r of ran) {
        if (!inputs.some((input) => isDeepStrictEqual(input, r.input))) {
          violations.push(`tool ${r.name} ran on input it was never sent whole: ${JSON.stringify(r.input)}`);
        }
      }
      const logged = loadSession(log.path).messages;
      if (!isDeepStrictEqual(logged, result.messages)) {
        violations.push(
          `the session log replays to a different transcript (${logged.length} vs ${result.messages.length} messages)`,
        );
      }
      const next = await nextRequestProblem(bench, result.messages, "after the run");
      if (next) violations.push(next);
    }
    // The process killed between (or in the middle of) session-log writes: resume from a cut copy.
    faults++;
    const bytes = readFileSync(log.path);
    const header = bytes.indexOf(10) + 1;
    const cut = header + Math.floor(c.cutAt * (bytes.length - header));
    const copy = join(dir, "killed.jsonl");
    copyFileSync(log.path, copy);
    truncateSync(copy, cut);
    const resumed = resumeSession(copy);
    resumed.log.close();
    if (resumed.history.length > 0) {
      transcripts++;
      const problems = checkTranscript(resumed.history);
      if (problems.length > 0) violations.push(`resumed at byte ${cut}: ${problems.join("; ")}`);
      const reread = loadSession(resumed.path).messages;
      if (!isDeepStrictEqual(reread, resumed.history)) {
        violations.push(
          `resumed at byte ${cut}: the file does not replay to the resumed transcript: ${JSON.stringify(reread)} vs ${JSON.stringify(resumed.history)} file ${JSON.stringify(readFileSync(resumed.path, "utf8"))}`,
        );
      }
      const next = await nextRequestProblem(bench, resumed.history, `resumed at byte ${cut}`);
      if (next) violations.push(next);
    }
  } catch (error) {
    violations.push(
      `checking threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { faults, transcripts, violations };
}

/** Whether the adapter's decoder turns two calls of one response with the same id into two distinct ids. */
export async function decodesUniqueIds(adapter: ConformanceAdapter): Promise<boolean> {
  if (!adapter.callIds) return false;
  const sim = await startSimulator();
  try {
    const input = { text: "x" };
    sim.enqueue(
      adapter.turn({
        content: [
          { type: "tool_use", id: "toolu_same", name: "echo", input },
          { type: "tool_use", id: "toolu_same", name: "echo", input },
        ],
      }),
    );
    const provider = adapter.provider(sim, FAST_RETRY);
    const ids = new Set<string>();
    for await (const event of provider.stream({
      model: adapter.model,
      system: [],
      tools: [],
      messages: [{ role: "user", content: [{ type: "text", text: "Go." }] }],
      maxTokens: 1024,
    })) {
      if (event.type !== "message-end") continue;
      for (const block of event.message.content) if (block.type === "tool_use") ids.add(block.id);
    }
    return ids.size === 2;
  } finally {
    await sim.close();
  }
}
