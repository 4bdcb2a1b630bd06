/**
 * bench/durable: the cost of durability. One scripted session of N model calls (each but the last asks for one
 * tool call) runs through the same loop in process and as a durable session on a real Restate server with one
 * worker (a chain of invocations of a few turns each; each turn's model call, with its reminders, and each tool
 * call, with its permission decision, a journaled step; the transcript appended to the object's state). For N =
 * 10, 50 and 200 (10 and 50 with --quick; BENCH_LENGTHS), on an HTTP/1.1 and an HTTP/2 worker, with an instant
 * model (the bare overhead), after a warm-up, it reports medians of BENCH_REPEAT interleaved runs: the wall time
 * of each and their ratio (linear cost: the ratio stays flat as N grows), the CPU time of this process and of the
 * Restate server, the p50 / p99 overhead per step (the time between two model calls, durable minus in process,
 * pooled over the runs), and the journal's bytes and journaled steps per turn (flat: each step journals its own
 * changes; each Note call records a file seen, so the tool state grows with the session). Then (BENCH_PARTS picks)
 * `live`: what waking followers at each stored message costs; `sessions`: sessions per second (SESSIONS concurrent
 * 10-turn sessions on one worker); `latency`: the ratio at LATENCY_MS per answer; `crash`: a `mitsu worker`
 * process killed (kill -9) halfway through a session and another started: the time the session lost and how many
 * completed model calls were sent again (should be none); `node`: a node of a three-node cluster killed under
 * load: the time lost against the same load with no kill, and the model calls sent again (should be none).
 * Needs `npm run build` (the crash part runs the built `mitsu worker`).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDurableAgent,
  createSessionClient,
  freePort,
  HTTP2_TURNS_PER_INVOCATION,
  type RestateServer,
  registerWorker,
  serveWorker,
  startRestateCluster,
  startRestateServer,
} from "../../src/durable/index.js";
import { driverName } from "../../src/durable/session-object-name.js";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import type { Tool, ToolContext } from "../../src/loop/tool.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import type { Provider } from "../../src/providers/provider.js";
import {
  type LoggedRequest,
  type ScriptEntry,
  type SimTurn,
  startSimulator,
} from "../../src/simulator/index.js";
import { getReadTracker } from "../../src/tools/read-tracker.js";

const QUICK = process.argv.includes("--quick");
const TURNS = 20;
const LENGTHS = process.env.BENCH_LENGTHS
  ? process.env.BENCH_LENGTHS.split(",").map(Number)
  : QUICK
    ? [10, 50]
    : [10, 50, 200];
const SESSIONS = QUICK ? 10 : 40;
const LATENCY_MS = QUICK ? 50 : 200;
const MODEL = "claude-sonnet-5-5";
/** Sessions running on the three-node cluster when a node is killed. */
const SESSIONS_ON_CLUSTER = 8;
const SYSTEM = "You note things.";

const noteTool = {
  name: "Note",
  description: "Notes a line.",
  inputSchema: { type: "object", properties: { line: { type: "string" } }, required: ["line"] },
  // Each note is recorded as a file seen (the tool state grows with the session, as a coding session's Reads do).
  async run(input: { line: string }, context: ToolContext) {
    const tracker = getReadTracker(context.state);
    tracker.record(`/notes/${tracker.entries().length}-${input.line.slice(0, 12)}`, { mtimeMs: 1, size: 1 });
    return `noted: ${input.line}`;
  },
} as unknown as Tool<never>;

function script(latencyMs: number, length = TURNS): SimTurn[] {
  const turns: SimTurn[] = [];
  for (let i = 1; i < length; i++)
    turns.push({
      content: [
        { type: "text", text: `Step ${i}: noting what I found so far in this part of the work.` },
        { type: "tool_use", name: "Note", input: { line: `finding ${i}: ${"detail ".repeat(20)}` } },
      ],
      latencyMs,
    });
  turns.push({ content: [{ type: "text", text: "All noted." }], latencyMs });
  return turns;
}

/**
 * `count` script entries for sessions that run side by side: each request is answered with its session's next
 * turn of `script(latencyMs, length)`, found by the tool results the request carries.
 */
function scriptByProgress(latencyMs: number, length: number, count: number): ScriptEntry[] {
  const turns = script(latencyMs, length);
  return Array.from({ length: count }, () => (request: LoggedRequest) => {
    const messages = request.body.messages as Array<{ content: Array<{ type: string }> }>;
    const done = messages.filter((m) => m.content.some((b) => b.type === "tool_result")).length;
    return turns[done] as SimTurn;
  });
}

/** The provider, with the time each model call starts pushed to `marks`. */
function timed(url: string, marks: number[]): Provider {
  const provider = createAnthropicProvider({ apiKey: "bench", baseURL: url });
  return {
    api: provider.api,
    encode: (request) => provider.encode(request),
    stream: (request, options) => {
      marks.push(performance.now());
      return provider.stream(request, options);
    },
  };
}

interface Timing {
  ms: number;
  /** When each model call started. */
  marks: number[];
}

async function inProcess(latencyMs: number, length = TURNS): Promise<Timing> {
  const sim = await startSimulator({ script: script(latencyMs, length) });
  const marks: number[] = [];
  try {
    const started = performance.now();
    const result = await runAgentToEnd({
      provider: timed(sim.url, marks),
      model: MODEL,
      system: SYSTEM,
      tools: [noteTool],
      messages: [{ role: "user", content: [{ type: "text", text: "Note your findings." }] }],
      maxTurns: length,
      liveInput: false,
    });
    if (result.reason !== "end_turn") throw new Error(`in-process run ended with ${result.reason}`);
    return { ms: performance.now() - started, marks };
  } finally {
    await sim.close();
  }
}

/** The journaled steps (`ctx.run`: each a round trip to the server) of a session's invocations. */
/** The one number a query of the server's SQL introspection (`sys_journal`, …) selects, or 0. */
async function selectNumber(server: RestateServer, sql: string): Promise<number> {
  const response = await fetch(`${server.adminUrl}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query: sql }),
  });
  const rows = ((await response.json()) as { rows: Array<{ n: number }> }).rows;
  return Number(rows[0]?.n ?? 0);
}

function runSteps(server: RestateServer, name: string, key: string): Promise<number> {
  return selectNumber(
    server,
    `SELECT count(*) AS n FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_name = '${name}' AND i.target_service_key = '${key}' AND j.entry_type = 'Command: Run'`,
  );
}

function journalBytes(server: RestateServer, name: string, key: string): Promise<number> {
  return selectNumber(
    server,
    `SELECT sum(j.raw_length) AS n FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_name IN ('${name}', '${driverName(name)}') AND i.target_service_key = '${key}'`,
  );
}

async function onRestate(
  server: RestateServer,
  latencyMs: number,
  protocol: "http1" | "http2",
  length = TURNS,
  sessions = 1,
  tag = "",
  liveEvents = process.env.BENCH_LIVE !== "0",
): Promise<Timing & { bytes: number; steps: number }> {
  const sim = await startSimulator({ script: scriptByProgress(latencyMs, length, length * sessions) });
  const name = `bench-${latencyMs}-${protocol}-${length}-${sessions}${tag ? `-${tag}` : ""}`;
  const marks: number[] = [];
  const agent = createDurableAgent({
    name,
    ingressUrl: server.ingressUrl,
    liveEvents,
    // As `mitsu worker` runs them (BENCH_TURNS_PER_INVOCATION to try others).
    ...(process.env.BENCH_TURNS_PER_INVOCATION
      ? { turnsPerInvocation: Number(process.env.BENCH_TURNS_PER_INVOCATION) }
      : protocol === "http2"
        ? { turnsPerInvocation: HTTP2_TURNS_PER_INVOCATION }
        : {}),
    setup: () => ({
      provider: timed(sim.url, marks),
      model: MODEL,
      system: SYSTEM,
      tools: [noteTool],
      maxTurns: length,
      // As `mitsu worker`, which always has a permission checker (here one that allows) and per-turn reminders
      // (here none to add): each is journaled, with the tool's step and with the model's.
      permissions: () => ({ behavior: "allow" }),
      reminders: () => [],
    }),
  });
  const worker = await serveWorker({
    services: [agent],
    port: 0,
    host: "127.0.0.1",
    logLevel: "error",
    protocol,
  });
  try {
    await registerWorker(server.adminUrl, worker.url, { http2: protocol === "http2" });
    const client = createSessionClient({ ingressUrl: server.ingressUrl, name, pollMs: 10 });
    const started = performance.now();
    // One request held open per prompt (the ingress answers when the prompt ends): `client.prompt` polls for
    // the answer, which would add its own requests to what is measured (BENCH_POLL=1 to measure with it).
    const responses = await Promise.all(
      Array.from({ length: sessions }, (_, i) =>
        process.env.BENCH_POLL === "1"
          ? client.prompt(`bench-${i}`, { prompt: "Note your findings." })
          : fetch(`${server.ingressUrl}/${name}/bench-${i}/prompt`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ prompt: "Note your findings." }),
            }).then((response) => response.json() as Promise<{ reason: string }>),
      ),
    );
    const ms = performance.now() - started;
    for (const response of responses)
      if (response.reason !== "end_turn") throw new Error(`durable run ended with ${response.reason}`);
    return {
      ms,
      marks,
      bytes: sessions === 1 ? await journalBytes(server, name, "bench-0") : 0,
      steps: sessions === 1 ? await runSteps(server, name, "bench-0") : 0,
    };
  } finally {
    await worker.close();
    await sim.close();
  }
}

/** The time between consecutive model calls. */
function gaps(marks: number[]): number[] {
  return marks.slice(1).map((mark, i) => mark - (marks[i] as number));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** A `mitsu worker` killed with -9 once the session's 10th model call is journaled, then replaced. */
async function crash(server: RestateServer): Promise<{ lostMs: number; resent: number; totalMs: number }> {
  const root = mkdtempSync(join(tmpdir(), "mitsu-bench-durable-"));
  const turns = script(LATENCY_MS).map((turn) => ({
    ...turn,
    content: turn.content.map((block) =>
      block.type === "tool_use"
        ? { ...block, name: "Bash", input: { command: "echo noted >> notes.txt" } }
        : block,
    ),
  }));
  const sim = await startSimulator({ script: turns as SimTurn[] });
  mkdirSync(join(root, "fleet", "crash"), { recursive: true });
  const port = await freePort();
  const bin = join(import.meta.dirname, "..", "..", "..", "dist", "cli", "bin.js");
  const start = () => {
    const child = spawn(
      process.execPath,
      [
        bin,
        "worker",
        "--port",
        String(port),
        "--host",
        "127.0.0.1",
        "--workspaces",
        join(root, "fleet"),
        "--allowedTools",
        "Bash",
        "--max-turns",
        String(TURNS),
      ],
      {
        env: { PATH: process.env.PATH, HOME: root, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: sim.url },
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    return new Promise<typeof child>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("serving")) resolve(child);
      });
      child.on("exit", () => reject(new Error("the worker exited")));
    });
  };
  let worker = await start();
  try {
    await registerWorker(server.adminUrl, `http://127.0.0.1:${port}`);
    const client = createSessionClient({ ingressUrl: server.ingressUrl, pollMs: 10 });
    const started = performance.now();
    const done = client.prompt("crash", { prompt: "Note your findings." });
    while (sim.requests.filter((r) => r.status === 200).length < TURNS / 2)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const killedAt = performance.now();
    worker.kill("SIGKILL");
    worker = await start();
    const beforeKill = sim.requests.length;
    while (sim.requests.length === beforeKill) await new Promise((resolve) => setTimeout(resolve, 5));
    const resumedAt = performance.now();
    const response = await done;
    if (response.reason !== "end_turn") throw new Error(`crashed run ended with ${response.reason}`);
    return {
      lostMs: resumedAt - killedAt,
      resent: sim.requests.length - TURNS,
      totalMs: performance.now() - started,
    };
  } finally {
    worker.kill("SIGTERM");
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A node of a three-node cluster killed (kill -9) while SESSIONS_ON_CLUSTER sessions of TURNS turns run (a
 * LATENCY_MS model, one worker, clients on the first node), beside the same sessions with no kill: the time the
 * sessions lost (finished later than the calm run), each session's longest pause between two model calls, and the
 * model calls sent again (none should be: a call in flight when its partition's leader died is waited for by the
 * invocation's next attempt on the same worker, `InFlightSteps`).
 */
async function nodeKill(): Promise<{
  calmMs: number;
  killedMs: number;
  pauses: number[];
  resent: number;
  gap: number;
}> {
  const nodes = await startRestateCluster({
    env: {
      RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: "50ms",
      RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: "500ms",
    },
  });
  const [one, , three] = nodes as [RestateServer, RestateServer, RestateServer];
  const sim = await startSimulator({
    // Three loads (warm, calm, killed), and room for calls sent again.
    script: scriptByProgress(LATENCY_MS, TURNS, TURNS * SESSIONS_ON_CLUSTER * 4),
  });
  const marks = new Map<string, number[]>();
  const name = "bench-node-kill";
  const agent = createDurableAgent({
    name,
    ingressUrl: one.ingressUrl,
    setup: (session) => {
      const own = marks.get(session.id) ?? [];
      marks.set(session.id, own);
      return {
        provider: timed(sim.url, own),
        model: MODEL,
        system: SYSTEM,
        tools: [noteTool],
        maxTurns: TURNS,
        permissions: () => ({ behavior: "allow" }),
      };
    },
  });
  const worker = await serveWorker({ services: [agent], port: 0, host: "127.0.0.1", logLevel: "silent" });
  try {
    await registerWorker(one.adminUrl, worker.url);
    const client = createSessionClient({ ingressUrl: one.ingressUrl, name, pollMs: 20 });
    const load = async (prefix: string, during?: () => Promise<void>) => {
      const ids = Array.from({ length: SESSIONS_ON_CLUSTER }, (_, i) => `${prefix}-${i}`);
      const started = performance.now();
      const answers = Promise.all(ids.map((id) => client.prompt(id, { prompt: "Note your findings." })));
      await during?.();
      for (const answer of await answers)
        if (answer.reason !== "end_turn") throw new Error(`a session ended with ${answer.reason}`);
      return { ms: performance.now() - started, ids };
    };
    // The first sessions on a new cluster wait for it to settle (partition leaders, the deployment known).
    await load("warm");
    const calm = await load("calm");
    const requests = sim.requests.length;
    const calls = (ids: string[]) => ids.reduce((sum, id) => sum + (marks.get(id)?.length ?? 0), 0);
    const killedIds = Array.from({ length: SESSIONS_ON_CLUSTER }, (_, i) => `killed-${i}`);
    const killed = await load("killed", async () => {
      while (calls(killedIds) < (SESSIONS_ON_CLUSTER * TURNS) / 2)
        await new Promise((resolve) => setTimeout(resolve, 5));
      await three.kill();
    });
    const gap = median(calm.ids.flatMap((id) => gaps(marks.get(id) ?? [])));
    return {
      calmMs: calm.ms,
      killedMs: killed.ms,
      pauses: killed.ids.map((id) => Math.max(...gaps(marks.get(id) ?? [])) - gap),
      resent: sim.requests.length - requests - SESSIONS_ON_CLUSTER * TURNS,
      gap,
    };
  } finally {
    await worker.close();
    await sim.close();
    await Promise.all(nodes.map((node) => node.stop()));
  }
}

/** CPU milliseconds this process and the server's process have used so far (user + system). */
function cpuMs(server: RestateServer): number {
  return ownCpuMs() + serverCpuMs(server);
}

function ownCpuMs(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000;
}

function serverCpuMs(server: RestateServer): number {
  let theirs = 0;
  try {
    // /proc/<pid>/stat: utime and stime are fields 14 and 15, in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    theirs = ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * 10;
  } catch {
    // Not Linux: the server's part is left out.
  }
  return theirs;
}

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Which parts run (BENCH_PARTS=ratio,live,sessions,latency,crash,node; default all). */
const PARTS = new Set((process.env.BENCH_PARTS ?? "ratio,live,sessions,latency,crash,node").split(","));
/** Runs of each measurement (in process and on Restate, interleaved): the wall times reported are medians. */
const REPEAT = Number(process.env.BENCH_REPEAT ?? (QUICK ? 3 : 5));

async function ratios(server: RestateServer): Promise<void> {
  console.log(
    `\nbench/durable: an N-turn session (N-1 tool calls), in process vs on Restate (one worker), instant model; medians of ${REPEAT} runs`,
  );
  // Warm-up: the first runs of both pay for compiling the loop and the SDK.
  await inProcess(0, 10);
  await onRestate(server, 0, "http2", 10, 1, "warm");
  for (const length of LENGTHS) {
    for (const protocol of ["http1", "http2"] as const) {
      const local: number[] = [];
      const durable: number[] = [];
      const ratio: number[] = [];
      const overhead: number[] = [];
      let bytes = 0;
      let steps = 0;
      // CPU time: this process (the loop, the worker, the simulator) and, on Restate, the server's.
      const localCpu: number[] = [];
      const durableCpu: number[] = [];
      const serverCpu: number[] = [];
      for (let run = 0; run < REPEAT; run++) {
        let cpu = cpuMs(server);
        const here = await inProcess(0, length);
        localCpu.push(cpuMs(server) - cpu);
        cpu = cpuMs(server);
        const serverBefore = serverCpuMs(server);
        const there = await onRestate(server, 0, protocol, length, 1, String(run));
        durableCpu.push(cpuMs(server) - cpu);
        serverCpu.push(serverCpuMs(server) - serverBefore);
        local.push(here.ms);
        durable.push(there.ms);
        ratio.push(there.ms / here.ms);
        const localGaps = gaps(here.marks);
        overhead.push(...gaps(there.marks).map((gap, i) => gap - (localGaps[i] ?? 0)));
        bytes = there.bytes;
        steps = there.steps;
      }
      console.log(
        `  ${String(length).padStart(3)} turns, ${protocol}: in process ${median(local).toFixed(0).padStart(5)} ms, on Restate ${median(durable).toFixed(0).padStart(6)} ms, ratio ${median(ratio).toFixed(2)}x (${Math.min(...ratio).toFixed(2)}-${Math.max(...ratio).toFixed(2)}); CPU ${median(localCpu).toFixed(0)} / ${median(durableCpu).toFixed(0)} ms (server ${median(serverCpu).toFixed(0)}), ${(median(durableCpu) / median(localCpu)).toFixed(2)}x; step overhead p50 ${percentile(overhead, 50).toFixed(1)} ms, p99 ${percentile(overhead, 99).toFixed(1)} ms (${overhead.length} gaps); journal ${(bytes / length / 1024).toFixed(2)} KiB and ${(steps / length).toFixed(2)} steps (round trips) per turn`,
      );
    }
  }
}

const server = await startRestateServer({
  env: {
    RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: "50ms",
    RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: "500ms",
  },
});
try {
  if (PARTS.has("ratio")) await ratios(server);
  if (PARTS.has("live")) {
    // What waking a session's followers at each stored message costs (liveEvents), at 50 turns.
    for (const protocol of ["http1", "http2"] as const) {
      const on: number[] = [];
      const off: number[] = [];
      for (let run = 0; run < REPEAT; run++) {
        on.push((await onRestate(server, 0, protocol, 50, 1, `live${run}`)).ms);
        off.push((await onRestate(server, 0, protocol, 50, 1, `quiet${run}`, false)).ms);
      }
      console.log(
        `  50 turns, ${protocol}: live events ${median(on).toFixed(0)} ms, without ${median(off).toFixed(0)} ms (${((median(on) - median(off)) / 100).toFixed(2)} ms per stored message)`,
      );
    }
  }
  if (PARTS.has("sessions"))
    for (const protocol of ["http1", "http2"] as const) {
      const many = await onRestate(server, 0, protocol, 10, SESSIONS);
      console.log(
        `  ${SESSIONS} concurrent 10-turn sessions, ${protocol}: ${many.ms.toFixed(0)} ms, ${((SESSIONS * 1000) / many.ms).toFixed(1)} sessions/s`,
      );
    }
  if (PARTS.has("latency")) {
    const local = await inProcess(LATENCY_MS);
    for (const protocol of ["http1", "http2"] as const) {
      const durable = await onRestate(server, LATENCY_MS, protocol);
      console.log(
        `  ${TURNS} turns, model latency ${LATENCY_MS} ms, ${protocol}: in process ${local.ms.toFixed(0)} ms, on Restate ${durable.ms.toFixed(0)} ms, ratio ${(durable.ms / local.ms).toFixed(2)}x`,
      );
    }
  }
  if (PARTS.has("crash")) {
    const crashed = await crash(server);
    console.log(
      `  kill -9 after turn ${TURNS / 2}: the session waited ${crashed.lostMs.toFixed(0)} ms for a new worker, finished in ${crashed.totalMs.toFixed(0)} ms; completed model calls sent again: ${crashed.resent}`,
    );
  }
  if (PARTS.has("node")) {
    const lost = await nodeKill();
    const pauses = [...lost.pauses].sort((a, b) => a - b);
    console.log(
      `  a node of three killed (kill -9) after turn ${TURNS / 2} of ${SESSIONS_ON_CLUSTER} sessions (${LATENCY_MS} ms model): they finished in ${(lost.killedMs / 1000).toFixed(2)} s (${(lost.calmMs / 1000).toFixed(2)} s with no kill, ${((lost.killedMs - lost.calmMs) / 1000).toFixed(2)} s lost); longest pause between two model calls beyond the usual ${(lost.gap / 1000).toFixed(2)} s: ${(median(pauses) / 1000).toFixed(2)} s median, ${((pauses.at(-1) ?? 0) / 1000).toFixed(2)} s most; model calls sent again: ${lost.resent}`,
    );
  }
} finally {
  await server.stop();
}
