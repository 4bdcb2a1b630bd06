/**
 * bench/stream-assembly: client CPU time to assemble one streamed tool input of 16 KiB … 4 MiB
 * (64-character input_json_delta fragments over loopback), mitsu side by side with its peers, as ratios
 * to the floor (SSE split + concatenation + one JSON.parse). The server runs in a child process.
 */
import { fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  aiFinal,
  aiLive,
  anthropicSdkFinal,
  anthropicSdkLive,
  type ClientRun,
  floor,
  mitsuFinal,
  mitsuLive,
} from "./clients.js";

const here = dirname(fileURLToPath(import.meta.url));
const KiB = 1024;
const SIZES = [16 * KiB, 256 * KiB, 1024 * KiB, 4096 * KiB];
const quick = process.argv.includes("--quick");
/** CPU seconds after which a (quadratic) peer is stopped and reported as "> budget". */
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? (quick ? 5_000 : 30_000));

type Client = (run: ClientRun) => Promise<number>;
const CLIENTS: Array<{ name: string; mode: "live" | "final" | "floor"; run: Client }> = [
  { name: "floor", mode: "floor", run: floor },
  { name: "mitsu", mode: "live", run: mitsuLive },
  { name: "@anthropic-ai/sdk", mode: "live", run: anthropicSdkLive },
  { name: "ai + @ai-sdk/anthropic", mode: "live", run: aiLive },
  { name: "mitsu", mode: "final", run: mitsuFinal },
  { name: "@anthropic-ai/sdk", mode: "final", run: anthropicSdkFinal },
  { name: "ai + @ai-sdk/anthropic", mode: "final", run: aiFinal },
];

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function repeats(size: number): number {
  if (quick) return 1;
  return size <= 16 * KiB ? 15 : size <= 256 * KiB ? 7 : size <= 1024 * KiB ? 5 : 3;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(client: Client, url: string, size: number): Promise<number> {
  const times: number[] = [];
  // One warm-up run at the smallest cost (not counted), then the measured runs.
  const n = repeats(size);
  for (let i = -1; i < n; i++) {
    const start = cpuMs();
    const length = await client({ url, size, overBudget: () => cpuMs() - start > BUDGET_MS });
    const spent = cpuMs() - start;
    if (length === -1) return Number.POSITIVE_INFINITY;
    if (length !== size) throw new Error(`assembled ${length} characters, expected ${size}`);
    if (i >= 0) times.push(spent);
    if (spent > BUDGET_MS / 2) return spent; // slow peers: one run is enough
  }
  return median(times);
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
        const key = `${client.mode}:${client.name}`;
        results[key] ??= {};
        // Once a peer is over budget at one size it is over it at every larger size.
        const previous = Object.values(results[key]).at(-1);
        const ms =
          previous !== undefined && !Number.isFinite(previous)
            ? Number.POSITIVE_INFINITY
            : await measure(client.run, url, size);
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
  const floorRow = results["floor:floor"] ?? {};
  const header = ["mode", "client", ...sizes.map((s) => `${s / KiB} KiB`)];
  const rows: string[][] = [];
  for (const client of CLIENTS) {
    const key = `${client.mode}:${client.name}`;
    const row = results[key] ?? {};
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
  const f1 = at("floor:floor", MiB);
  const checks: Array<[string, number, string]> = [
    ["live ≤ 1.5× floor at 1 MiB", at("live:mitsu", MiB) / f1, "≤ 1.5"],
    ["final ≤ 1.2× floor at 1 MiB", at("final:mitsu", MiB) / f1, "≤ 1.2"],
    [
      "best live peer / mitsu live at 1 MiB",
      Math.min(at("live:@anthropic-ai/sdk", MiB), at("live:ai + @ai-sdk/anthropic", MiB)) /
        at("live:mitsu", MiB),
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
