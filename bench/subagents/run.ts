/**
 * bench/subagents: four Explore sub-agents, each of whose answers the simulator holds for LATENCY (1 s; 0.2 s
 * with --quick) before the first byte, started two ways by a scripted parent: all four Task calls in one turn
 * (they run concurrently) and one Task call per turn (one after another). It reports the wall time of each
 * whole run, and from the simulator's log how many sub-agent requests were in flight at once. Both runs go
 * through the real loop, the Task tool, the spawner, the Anthropic adapter and loopback HTTP.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILTIN_AGENTS, createSubagentSpawner, createTaskTool } from "../../src/agents/index.js";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { type LoggedRequest, type SimTurn, startSimulator } from "../../src/simulator/index.js";
import { createBuiltinTools } from "../../src/tools/create-builtin-tools.js";

const AGENTS = 4;
const LATENCY_MS = process.argv.includes("--quick") ? 200 : 1000;
const MODEL = "claude-sonnet-5-5";

const isChild = (request: LoggedRequest) =>
  JSON.stringify(request.body?.system ?? "").includes("You are Explore");
const task = (i: number) => ({
  type: "tool_use" as const,
  id: `toolu_task_${i}`,
  name: "Task",
  input: { description: `part ${i}`, prompt: `Look into part ${i}.`, subagent_type: "Explore" },
});
const childAnswer = (): SimTurn => ({
  content: [{ type: "text", text: "Part found in src/part.ts." }],
  latencyMs: LATENCY_MS,
});

async function measure(concurrent: boolean): Promise<{ ms: number; maxInFlight: number }> {
  const cwd = mkdtempSync(join(tmpdir(), "mitsu-bench-subagents-"));
  let inFlight = 0;
  let maxInFlight = 0;
  const script: Array<SimTurn | ((r: LoggedRequest) => SimTurn)> = [];
  const child = () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return childAnswer();
  };
  if (concurrent) {
    script.push({ content: Array.from({ length: AGENTS }, (_, i) => task(i)) });
    for (let i = 0; i < AGENTS; i++) script.push(child);
  } else {
    for (let i = 0; i < AGENTS; i++) script.push({ content: [task(i)] }, child);
  }
  script.push({ content: [{ type: "text", text: "All parts found." }] });
  const sim = await startSimulator({
    script,
    onMark: (mark) => {
      if (isChild(sim.requests[mark.request]!)) inFlight--;
    },
  });
  try {
    const provider = createAnthropicProvider({ apiKey: "bench", baseURL: sim.url });
    const tools: Tool<never>[] = [
      ...(createBuiltinTools({ cwd }) as Tool<never>[]),
      createTaskTool({ agents: BUILTIN_AGENTS }) as unknown as Tool<never>,
    ];
    const spawn = createSubagentSpawner({
      tools,
      parent: { provider, providerName: "anthropic", model: MODEL, maxOutputTokens: 8192 },
      cwd,
      env: {},
    });
    const started = performance.now();
    const result = await runAgentToEnd({
      provider,
      model: MODEL,
      system: "You are the parent.",
      tools,
      messages: [{ role: "user", content: [{ type: "text", text: "Find the four parts." }] }],
      spawn,
    });
    const ms = performance.now() - started;
    if (result.reason !== "end_turn")
      throw new Error(`the run ended with ${result.reason}: ${result.error?.message}`);
    if (sim.requests.filter(isChild).length !== AGENTS) throw new Error("not every sub-agent was started");
    return { ms, maxInFlight };
  } finally {
    await sim.close();
  }
}

const sequential = await measure(false);
const concurrent = await measure(true);
console.log(`\nbench/subagents — ${AGENTS} Explore sub-agents, ${LATENCY_MS} ms simulated latency each\n`);
console.log("| run                        | wall time | sub-agent requests in flight at once |");
console.log("| -------------------------- | --------- | ------------------------------------ |");
const row = (name: string, r: { ms: number; maxInFlight: number }) =>
  console.log(
    `| ${name.padEnd(26)} | ${`${(r.ms / 1000).toFixed(2)} s`.padStart(9)} | ${String(r.maxInFlight).padStart(36)} |`,
  );
row("one after another", sequential);
row("concurrent (one turn)", concurrent);
console.log(
  `\nspeed-up: ${(sequential.ms / concurrent.ms).toFixed(2)}× (the sequential run also makes ${AGENTS - 1} more parent calls)`,
);
