/**
 * bench/durable: the cost of durability. One scripted session of TURNS model calls (each but the last asks for
 * one tool call) runs twice through the same loop: in process, and as a durable session on a real Restate server
 * with one worker (each model call and tool call a journaled step, the transcript appended to the object's
 * state). It reports the wall time of each (at two model latencies: none, which shows the bare overhead, and
 * LATENCY ms per answer, closer to a real model), their ratio, and the journal's bytes per turn. Then the
 * crash figures: a `mitsu worker` process is killed (kill -9) halfway through a session and another started;
 * it reports the time the session lost and how many completed model calls were sent again (should be none).
 * Needs `npm run build` (the crash part runs the built `mitsu worker`).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDurableAgent,
  createSessionClient,
  freePort,
  type RestateServer,
  registerWorker,
  serveWorker,
  startRestateServer,
} from "../../src/durable/index.js";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { type SimTurn, startSimulator } from "../../src/simulator/index.js";

const QUICK = process.argv.includes("--quick");
const TURNS = 20;
const LATENCY_MS = QUICK ? 50 : 200;
const MODEL = "claude-sonnet-5-5";
const SYSTEM = "You note things.";

const noteTool = {
  name: "Note",
  description: "Notes a line.",
  inputSchema: { type: "object", properties: { line: { type: "string" } }, required: ["line"] },
  async run(input: { line: string }) {
    return `noted: ${input.line}`;
  },
} as unknown as Tool<never>;

function script(latencyMs: number): SimTurn[] {
  const turns: SimTurn[] = [];
  for (let i = 1; i < TURNS; i++)
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

async function inProcess(latencyMs: number): Promise<number> {
  const sim = await startSimulator({ script: script(latencyMs) });
  try {
    const started = performance.now();
    const result = await runAgentToEnd({
      provider: createAnthropicProvider({ apiKey: "bench", baseURL: sim.url }),
      model: MODEL,
      system: SYSTEM,
      tools: [noteTool],
      messages: [{ role: "user", content: [{ type: "text", text: "Note your findings." }] }],
      maxTurns: TURNS,
      liveInput: false,
    });
    if (result.reason !== "end_turn") throw new Error(`in-process run ended with ${result.reason}`);
    return performance.now() - started;
  } finally {
    await sim.close();
  }
}

async function journalBytes(server: RestateServer, name: string, key: string): Promise<number> {
  const response = await fetch(`${server.adminUrl}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      query: `SELECT sum(j.raw_length) AS bytes FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_name = '${name}' AND i.target_service_key = '${key}'`,
    }),
  });
  const rows = ((await response.json()) as { rows: Array<{ bytes: number }> }).rows;
  return Number(rows[0]?.bytes ?? 0);
}

async function onRestate(
  server: RestateServer,
  latencyMs: number,
  protocol: "http1" | "http2",
): Promise<{ ms: number; bytes: number }> {
  const sim = await startSimulator({ script: script(latencyMs) });
  const name = `bench-${latencyMs}-${protocol}`;
  const agent = createDurableAgent({
    name,
    setup: () => ({
      provider: createAnthropicProvider({ apiKey: "bench", baseURL: sim.url }),
      model: MODEL,
      system: SYSTEM,
      tools: [noteTool],
      maxTurns: TURNS,
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
    const response = await client.prompt("bench", { prompt: "Note your findings." });
    const ms = performance.now() - started;
    if (response.reason !== "end_turn") throw new Error(`durable run ended with ${response.reason}`);
    return { ms, bytes: await journalBytes(server, name, "bench") };
  } finally {
    await worker.close();
    await sim.close();
  }
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

const server = await startRestateServer({
  env: {
    RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: "50ms",
    RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: "500ms",
  },
});
try {
  console.log(
    `\nbench/durable: a ${TURNS}-turn session (${TURNS - 1} tool calls), in process vs on Restate (one worker)`,
  );
  for (const latency of [0, LATENCY_MS]) {
    const local = await inProcess(latency);
    for (const protocol of ["http1", "http2"] as const) {
      const durable = await onRestate(server, latency, protocol);
      console.log(
        `  model latency ${String(latency).padStart(3)} ms, worker ${protocol}: in process ${local.toFixed(0).padStart(5)} ms, on Restate ${durable.ms.toFixed(0).padStart(5)} ms, ratio ${(durable.ms / local).toFixed(2)}x; journal ${(durable.bytes / TURNS / 1024).toFixed(1)} KiB per turn (${(durable.bytes / 1024).toFixed(0)} KiB in all)`,
      );
    }
  }
  const crashed = await crash(server);
  console.log(
    `  kill -9 after turn ${TURNS / 2}: the session waited ${crashed.lostMs.toFixed(0)} ms for a new worker, finished in ${crashed.totalMs.toFixed(0)} ms; completed model calls sent again: ${crashed.resent}`,
  );
} finally {
  await server.stop();
}
