/**
 * The measured side of bench/long-session, run in its own process so that its peak RSS and CPU are mitsu's
 * alone (the simulator runs in the parent). Two modes, chosen by MITSU_BENCH_MODE:
 *  - "session": one prompt of MITSU_BENCH_TURNS Read calls through the whole coding agent, against the
 *    simulator at MITSU_BENCH_URL; prints its figures as one JSON line;
 *  - "resume": opens the coding agent on the session file MITSU_BENCH_RESUME (the whole resume: read, check,
 *    rebuild the transcript, lock) and prints the CPU and memory that took.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createCodingAgent } from "../../src/harness/index.js";

let peakSmaps = "";

const env = process.env;
const mode = env.MITSU_BENCH_MODE ?? "session";
const cwd = env.MITSU_BENCH_CWD as string;
const home = env.MITSU_BENCH_HOME as string;
const agentEnv = {
  PATH: env.PATH,
  ANTHROPIC_API_KEY: "bench",
  ANTHROPIC_BASE_URL: env.MITSU_BENCH_URL ?? "http://127.0.0.1:9",
};

/**
 * MITSU_BENCH_ALLOCPROF=<file>: a sampling profile of every allocation of the session (also of what the GC
 * collected since), to find where the bytes go; written when the session ends. With
 * MITSU_BENCH_ALLOCPROF_SURVIVORS=1, only the allocations that outlived a scavenge (the old generation's share).
 */
async function allocationProfile(): Promise<(() => Promise<void>) | undefined> {
  const file = env.MITSU_BENCH_ALLOCPROF;
  if (!file) return undefined;
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const inspector = new Session();
  inspector.connect();
  await inspector.post("HeapProfiler.startSampling", {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    // MITSU_BENCH_ALLOCPROF_SURVIVORS=1: only what outlived a scavenge (what reaches the old generation).
    includeObjectsCollectedByMinorGC: !env.MITSU_BENCH_ALLOCPROF_SURVIVORS,
  } as never);
  return async () => {
    const { profile } = (await inspector.post("HeapProfiler.stopSampling")) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
  };
}

async function session(): Promise<Record<string, unknown>> {
  const turns = Number(env.MITSU_BENCH_TURNS);
  const stopProfile = await allocationProfile();
  const before = process.cpuUsage();
  const started = performance.now();
  const agent = await createCodingAgent({
    cwd,
    home,
    env: agentEnv,
    model: "anthropic:long",
    permissionMode: "bypassPermissions",
  });
  const peak = { rss: 0, at: "" };
  let compactions = 0;
  let trims = 0;
  const run = agent.prompt("Read every file, one after another, and tell me what they have in common.", {
    maxTurns: turns + 50,
  });
  let reason = "";
  let error: string | undefined;
  for (;;) {
    const next = await run.next();
    if (next.done) {
      reason = next.value.reason;
      error = next.value.error?.message;
      break;
    }
    const event = next.value;
    if (env.MITSU_BENCH_PEAKLOG) {
      const rss = process.memoryUsage.rss() >> 20;
      if (rss > peak.rss) {
        const m = process.memoryUsage();
        const detail = `heapTotal ${m.heapTotal >> 20} heapUsed ${m.heapUsed >> 20} external ${m.external >> 20} arrayBuffers ${m.arrayBuffers >> 20}`;
        Object.assign(peak, {
          rss,
          at: `${event.type} turn ${"turn" in event ? event.turn : "?"} (${detail})`,
        });
        if (env.MITSU_BENCH_SMAPS && rss > 120) peakSmaps = readFileSync("/proc/self/smaps", "utf8");
      }
    }
    if (env.MITSU_BENCH_MEMLOG && event.type === "turn-start" && event.turn % 10 === 0) {
      const m = process.memoryUsage();
      const f = (v: number) => (v / 1048576).toFixed(0);
      process.stderr.write(
        `turn ${event.turn}: rss ${f(m.rss)} heapUsed ${f(m.heapUsed)} heapTotal ${f(m.heapTotal)} external ${f(m.external)} arrayBuffers ${f(m.arrayBuffers)}\n`,
      );
    }
    if (event.type === "history-replaced") {
      if (event.reason === "trimmed") trims++;
      else compactions++;
    }
  }
  const sessionPath = agent.sessionPath as string;
  await stopProfile?.();
  if (env.MITSU_BENCH_PEAKLOG) process.stderr.write(`peak rss seen ${peak.rss} MB at ${peak.at}\n`);
  if (env.MITSU_BENCH_SMAPS) writeFileSync(env.MITSU_BENCH_SMAPS, peakSmaps);
  if (env.MITSU_BENCH_SNAPSHOT) {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    process.stderr.write(
      `after gc: rss ${m.rss >> 20} heapUsed ${m.heapUsed >> 20} external ${m.external >> 20} arrayBuffers ${m.arrayBuffers >> 20}\n`,
    );
    const { writeHeapSnapshot } = await import("node:v8");
    writeHeapSnapshot(env.MITSU_BENCH_SNAPSHOT);
  }
  await agent.close();
  const cpu = process.cpuUsage(before);
  return {
    reason,
    ...(error ? { error } : {}),
    compactions,
    trims,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - started,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    sessionPath,
    sessionBytes: statSync(sessionPath).size,
  };
}

async function resume(): Promise<Record<string, unknown>> {
  const path = env.MITSU_BENCH_RESUME as string;
  const rssBefore = process.resourceUsage().maxRSS / 1024;
  const before = process.cpuUsage();
  const started = performance.now();
  const agent = await createCodingAgent({
    cwd,
    home,
    env: agentEnv,
    model: "anthropic:long",
    session: { resume: path, dir: dirname(path) },
  });
  const cpu = process.cpuUsage(before);
  const wallMs = performance.now() - started;
  const messages = agent.history.length;
  await agent.close();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    messages,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    rssBeforeMb: rssBefore,
  };
}

const figures = mode === "resume" ? await resume() : await session();
process.stdout.write(`${JSON.stringify(figures)}\n`);
