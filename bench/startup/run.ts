/**
 * `npm run bench -- startup` (or `node dist-bench/bench/startup/run.js`): how long the real `mitsu` command takes
 * to start, measured in one run beside a bare `node -e 0` (the floor on this machine) and, when `CLAUDE_BIN`
 * names an installed Claude Code binary, beside Claude Code doing the same thing.
 *
 * - `--version`, `--help`: spawn to exit.
 * - `-p` first request: spawn to the moment the simulator receives the first model request.
 * Each figure is the median of N runs (N=15, 5 with --quick).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runs = process.argv.includes("--quick") ? 5 : 15;
/** The command to measure: this checkout's build, or another (`MITSU_BIN=/path/to/dist/cli/bin.js`, to compare). */
const bin = process.env.MITSU_BIN ?? join(import.meta.dirname, "..", "..", "..", "dist", "cli", "bin.js");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function timeToExit(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: "ignore", env });
    child.on("error", reject);
    child.on("exit", () => resolve(performance.now() - start));
  });
}

/** Spawn to the arrival of the first model request at a loopback server (which then answers 400: the run ends). */
async function firstRequestMs(cwd: string, home: string): Promise<number> {
  let start = 0;
  let arrivedAt = Number.NaN;
  const server = createServer((req, res) => {
    if (Number.isNaN(arrivedAt)) arrivedAt = performance.now() - start;
    req.resume();
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bench" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    start = performance.now();
    const child = spawn(process.execPath, [bin, "-p", "hi", "--no-session-log"], {
      cwd,
      stdio: "ignore",
      env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url },
    });
    await new Promise((resolve) => child.on("exit", resolve));
    return arrivedAt;
  } finally {
    server.close();
  }
}

async function measure(label: string, once: () => Promise<number>): Promise<[string, number]> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await once());
  return [label, median(values)];
}

const root = mkdtempSync(join(tmpdir(), "mitsu-startup-"));
try {
  const rows: [string, number | undefined, number | undefined][] = [];
  const claude = process.env.CLAUDE_BIN;
  const [, floor] = await measure("node -e 0", () => timeToExit(process.execPath, ["-e", "0"]));
  for (const args of [["--version"], ["--help"]]) {
    const [, mitsu] = await measure(args[0] ?? "", () => timeToExit(process.execPath, [bin, ...args]));
    const other = claude ? (await measure("claude", () => timeToExit(claude, args)))[1] : undefined;
    rows.push([`mitsu ${args.join(" ")}`, mitsu, other]);
  }
  const [, first] = await measure("-p", () => firstRequestMs(root, root));
  rows.push(["mitsu -p: first request after spawn", first, undefined]);
  process.stdout.write(
    `\nStart-up (median of ${runs} runs; node -e 0 takes ${floor.toFixed(0)} ms here)\n\n`,
  );
  process.stdout.write("| | mitsu (ms) | above node -e 0 | Claude Code (ms) |\n|---|---:|---:|---:|\n");
  for (const [label, mitsu, other] of rows) {
    const m = mitsu ?? Number.NaN;
    process.stdout.write(
      `| ${label} | ${m.toFixed(0)} | ${(m - floor).toFixed(0)} | ${other === undefined ? "—" : other.toFixed(0)} |\n`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
