/**
 * bench/mcp-startup: how long `connectMcpServers` takes to make three stdio servers ready — spawned, `initialize`
 * answered, tools, prompts and resources listed — with @modelcontextprotocol/server-everything,
 * @modelcontextprotocol/server-filesystem and the test suite's SDK-written edge server, all node processes. The
 * servers connect at once, so the start-up costs about the slowest server, not the sum: the table shows both,
 * with each server's own time, as the median of the runs (5, or 2 with --quick).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectMcpServers } from "../../src/mcp/index.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 2 : 5;
const root = join(fileURLToPath(import.meta.url), "..", "..", "..", "..");
const node = (script: string, ...args: string[]) => ({ command: process.execPath, args: [script, ...args] });
const servers = {
  everything: node(join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"),
  filesystem: node(
    join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
    mkdtempSync(join(tmpdir(), "mitsu-bench-fs-")),
  ),
  edge: node(join(root, "test/mcp/edge-server.mjs")),
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const totals: number[] = [];
const each = new Map<string, number[]>();
for (let run = 0; run < RUNS; run++) {
  const started = performance.now();
  const connected = await connectMcpServers(servers, { logDir: false });
  totals.push(performance.now() - started);
  for (const status of connected.status) {
    if (status.state !== "connected") throw new Error(`${status.name} did not connect: ${status.error}`);
    each.set(status.name, [...(each.get(status.name) ?? []), status.durationMs]);
  }
  await connected.close();
}

console.log(`\nbench/mcp-startup — 3 stdio MCP servers ready (median of ${RUNS} runs)\n`);
for (const [name, times] of each)
  console.log(`  ${name.padEnd(12)} ${median(times).toFixed(0).padStart(5)} ms`);
const sum = [...each.values()].reduce((s, times) => s + median(times), 0);
console.log(`  ${"sum".padEnd(12)} ${sum.toFixed(0).padStart(5)} ms (one after the other)`);
console.log(
  `  ${"all three".padEnd(12)} ${median(totals).toFixed(0).padStart(5)} ms (concurrently: what a session waits for)`,
);
