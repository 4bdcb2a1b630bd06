/**
 * bench/cache-prefix: a 30-turn scripted session with tools (Glob, Grep, Read, Bash) on the demo workspace,
 * served by the simulator, which counts prompt-cache hits by Anthropic's rules. It measures, from the request
 * bodies as they went over the wire (independently of mitsu's own diagnostics):
 *  - how many requests extend the previous one byte for byte (system and tools identical, every earlier
 *    message unchanged; `cache_control` markers excluded, as the cache key excludes them);
 *  - from turn 2 on, the share of input tokens that were cache reads.
 * Targets (issue 4): 100% of requests extend the previous one; ≥ 95% cache reads from turn 2.
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createContext } from "../../src/context/index.js";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import { toToolDefinition } from "../../src/loop/tool.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { type SimTurn, startSimulator } from "../../src/simulator/index.js";
import { createBuiltinTools } from "../../src/tools/create-builtin-tools.js";

const TURNS = 30;
const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "..", "..", "..", "examples", "demo-workspace");

function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

/** 29 tool turns cycling through the read-only tools and Bash, then a final answer. */
function script(workspace: string): SimTurn[] {
  const calls = [
    { name: "Glob", input: { pattern: "**/*" } },
    { name: "Grep", input: { pattern: "export function", output_mode: "content", "-n": true } },
    { name: "Read", input: { file_path: join(workspace, "src/temperature.js") } },
    { name: "Read", input: { file_path: join(workspace, "test/temperature.test.js") } },
    { name: "Bash", input: { command: "node --test test/ 2>&1 | tail -5", description: "Run the tests" } },
    { name: "Grep", input: { pattern: "assert", output_mode: "count" } },
  ];
  const turns: SimTurn[] = [];
  for (let i = 0; i < TURNS - 1; i++) {
    const call = calls[i % calls.length]!;
    turns.push({
      content: [
        { type: "text", text: `Step ${i + 1}: checking with ${call.name}.` },
        { type: "tool_use", name: call.name, input: call.input },
      ],
    });
  }
  turns.push({ content: [{ type: "text", text: "The survey is complete." }] });
  return turns;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = strip(v);
    return out;
  }
  return value;
}

interface Body {
  system?: unknown;
  tools?: unknown;
  messages: unknown[];
}

/** Does `next` extend `prev` byte for byte (markers aside)? */
function extendsPrevious(prev: Body, next: Body): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(strip(a)) === JSON.stringify(strip(b));
  if (!same(prev.system, next.system) || !same(prev.tools, next.tools)) return false;
  if (next.messages.length < prev.messages.length) return false;
  return prev.messages.every((m, i) => same(m, next.messages[i]));
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "mitsu-bench-cache-"));
  const workspace = join(root, "ws");
  cpSync(source, workspace, { recursive: true });
  const sim = await startSimulator({ script: script(workspace) });
  try {
    const tools = createBuiltinTools({ cwd: workspace });
    const context = await createContext({
      cwd: workspace,
      home: join(root, "home"),
      model: "claude-sonnet-5-5",
      tools: tools.map((t) => toToolDefinition(t)),
    });
    const result = await runAgentToEnd({
      provider: createAnthropicProvider({ apiKey: "bench", baseURL: sim.url }),
      model: "claude-sonnet-5-5",
      system: context.system,
      tools,
      messages: [{ role: "user", content: [{ type: "text", text: "Survey this project, step by step." }] }],
      maxTurns: TURNS,
      canUseTool: () => ({ behavior: "allow" }),
      prepareRequest: context.prepareRequest,
    });
    if (result.reason !== "end_turn")
      throw new Error(`the session ended with ${result.reason}: ${result.error?.message}`);
    const served = sim.requests.filter((r) => r.status === 200);
    let extending = 0;
    let input = 0;
    let read = 0;
    const rows: string[] = [];
    for (const [i, request] of served.entries()) {
      const prev = served[i - 1];
      const ok = prev ? extendsPrevious(prev.body as Body, request.body as Body) : true;
      if (prev && ok) extending++;
      const u = request.usage!;
      const total = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
      if (i > 0) {
        input += total;
        read += u.cache_read_input_tokens;
      }
      rows.push(
        `| ${String(i + 1).padStart(4)} | ${String(total).padStart(6)} | ${String(u.cache_read_input_tokens).padStart(6)} | ${String(u.cache_creation_input_tokens).padStart(6)} | ${String(u.input_tokens).padStart(6)} | ${prev ? (ok ? "yes" : "NO ") : " – "} |`,
      );
    }
    console.log(
      "\nbench/cache-prefix — 30-turn scripted session with tools (simulator, Anthropic cache rules)\n",
    );
    console.log("| turn |  input |   read |  write | uncached | extends previous |");
    console.log("| ---- | ------ | ------ | ------ | -------- | ---------------- |");
    for (const row of rows) console.log(row);
    const pairs = served.length - 1;
    console.log(
      `\nrequests that extend the previous one byte for byte: ${extending}/${pairs} (${((100 * extending) / pairs).toFixed(1)}%, target 100%)`,
    );
    console.log(
      `input tokens read from the cache, turns 2–${served.length}: ${read}/${input} (${((100 * read) / input).toFixed(1)}%, target ≥ 95%)`,
    );
    console.log(`prefix warnings from mitsu's own diagnostics: ${context.warnings.length}`);
  } finally {
    await sim.close();
  }
}

await main();
