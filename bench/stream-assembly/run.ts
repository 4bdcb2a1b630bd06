/**
 * bench/stream-assembly: client CPU time to assemble one streamed tool input of 16 KiB … 4 MiB
 * (64-character input_json_delta fragments over loopback), mitsu side by side with its peers, as ratios
 * to the floor (SSE split + concatenation + one JSON.parse). The server runs in a child process.
 */
import { execFile, fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CLIENTS } from "./client-table.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const KiB = 1024;
const SIZES = [16 * KiB, 256 * KiB, 1024 * KiB, 4096 * KiB];
const quick = process.argv.includes("--quick");
/** CPU ms after which a (quadratic) peer is stopped and reported as "> budget". */
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? (quick ? 5_000 : 30_000));

function repeats(size: number): number {
  if (quick) return 3;
  return size <= 16 * KiB ? 21 : size <= 256 * KiB ? 11 : size <= 1024 * KiB ? 7 : 5;
}

/** The median CPU time of one client at one size, measured in a fresh process (see measure.ts). */
async function measure(key: string, url: string, size: number): Promise<number> {
  const args = [join(here, "measure.js"), key, String(size), url, String(repeats(size)), String(BUDGET_MS)];
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, {
      maxBuffer: 1 << 20,
      env: { ...process.env, AI_SDK_LOG_WARNINGS: "false" },
    }));
  } catch (error) {
    // A measurement that died (a client that never settled after being stopped: exit code 13) is reported as
    // over the budget, and the bench goes on with the other clients and sizes.
    const code = (error as { code?: unknown }).code;
    process.stderr.write(
      `  (${key} at ${size / KiB} KiB ended with exit code ${String(code)}: counted as > budget)\n`,
    );
    return Number.POSITIVE_INFINITY;
  }
  const value = Number(stdout.trim().split("\n").at(-1));
  if (Number.isNaN(value)) throw new Error(`${key} at ${size}: no measurement in ${JSON.stringify(stdout)}`);
  return value;
}

function fmt(ms: number): string {
  if (!Number.isFinite(ms)) return `> ${BUDGET_MS / 1000} s`;
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const server = fork(join(here, "server.js"), [], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout?.once("data", (line: Buffer) =>
      resolve((JSON.parse(line.toString()) as { url: string }).url),
    );
    server.once("error", reject);
  });
  const sizes = quick ? SIZES.slice(0, 3) : SIZES;
  const results: Record<string, Record<number, number>> = {};
  try {
    for (const size of sizes) {
      for (const client of CLIENTS) {
        const key = client.key;
        results[key] ??= {};
        // Once a peer is over budget at one size it is over it at every larger size.
        const previous = Object.values(results[key]).at(-1);
        const ms =
          previous !== undefined && !Number.isFinite(previous)
            ? Number.POSITIVE_INFINITY
            : await measure(key, url, size);
        results[key][size] = ms;
        process.stderr.write(`  ${String(size / KiB).padStart(5)} KiB  ${key.padEnd(32)} ${fmt(ms)}\n`);
      }
    }
  } finally {
    server.send("close");
  }
  report(results, sizes);
}

function report(results: Record<string, Record<number, number>>, sizes: number[]): void {
  const floorRow = results.floor ?? {};
  const header = ["mode", "client", ...sizes.map((s) => `${s / KiB} KiB`)];
  const rows: string[][] = [];
  for (const client of CLIENTS) {
    const row = results[client.key] ?? {};
    rows.push([
      client.mode,
      client.name,
      ...sizes.map((s) => {
        const ms = row[s] ?? Number.NaN;
        const base = floorRow[s] ?? Number.NaN;
        return client.mode === "floor" ? fmt(ms) : `${fmt(ms)} (${(ms / base).toFixed(2)}×)`;
      }),
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log("\nbench/stream-assembly — client CPU time (median), ratio to the floor\n");
  console.log(line(header));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(row));

  const MiB = 1024 * KiB;
  const at = (key: string, size: number) => results[key]?.[size] ?? Number.NaN;
  const f1 = at("floor", MiB);
  const checks: Array<[string, number, string]> = [
    ["live ≤ 1.5× floor at 1 MiB", at("live:mitsu", MiB) / f1, "≤ 1.5"],
    ["final ≤ 1.2× floor at 1 MiB", at("final:mitsu", MiB) / f1, "≤ 1.2"],
    [
      "best live peer / mitsu live at 1 MiB",
      // A peer over the budget counts as the budget: the true ratio is larger.
      Math.min(at("live:anthropic-sdk", MiB), at("live:ai", MiB), BUDGET_MS) / at("live:mitsu", MiB),
      "≥ 4",
    ],
  ];
  if (sizes.includes(4 * MiB)) {
    checks.push(["mitsu live 4 MiB / 1 MiB", at("live:mitsu", 4 * MiB) / at("live:mitsu", MiB), "≤ 4.5"]);
    checks.push(["mitsu final 4 MiB / 1 MiB", at("final:mitsu", 4 * MiB) / at("final:mitsu", MiB), "≤ 4.5"]);
  }
  console.log("");
  for (const [name, value, target] of checks) {
    console.log(`${name.padEnd(40)} ${Number.isFinite(value) ? value.toFixed(2) : "∞"}  (target ${target})`);
  }
  const out = join(here, "..", "..", "..", "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, "stream-assembly.json"),
    `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
  );
}

await main();
