import fc from "fast-check";
import { startSimulator } from "../../src/simulator/index.js";
import { ADAPTERS } from "../conformance/conformance-adapters.js";
import { type FaultCase, faultCase } from "./fault-case.js";
import { type Bench, decodesUniqueIds, FAST_RETRY, runFaultCase } from "./run-fault-case.js";

/** The outcome of a suite run: what `npm run faults` prints. */
export interface SuiteReport {
  seed: number;
  cases: number;
  faults: number;
  transcripts: number;
  /** Every violation, with the case that produced it (a counterexample to replay). */
  violations: Array<{ index: number; adapter: string; problem: string; case: FaultCase }>;
  unhandledRejections: string[];
  /** Adapters that speak call ids but keep a duplicate as it came: duplicate ids were not injected there. */
  duplicateIdsLeftOut: string[];
  ms: number;
}

/**
 * Generates `cases` scripts × faults with fast-check from `seed` (the same seed, the same cases) and runs each
 * through `runAgent` against a fresh simulator, over every adapter (four wire protocols, and the XML protocol
 * over two of them). Stops generating new cases once `faults` faults were injected, if given.
 */
export async function runFaultSuite(options: {
  seed: number;
  cases: number;
  faults?: number;
  /** Cases run side by side (default 4). */
  lanes?: number;
}): Promise<SuiteReport> {
  const started = performance.now();
  const unhandledRejections: string[] = [];
  const onRejection = (reason: unknown) => unhandledRejections.push(String(reason));
  process.on("unhandledRejection", onRejection);
  const lanes: Bench[][] = [];
  const lanesCount = options.lanes ?? 4;
  try {
    for (let lane = 0; lane < lanesCount; lane++) {
      const benches: Bench[] = [];
      for (const adapter of ADAPTERS) {
        const checker = await startSimulator();
        const duplicateIds = await decodesUniqueIds(adapter);
        benches.push({
          adapter,
          checker,
          checkerProvider: adapter.provider(checker, FAST_RETRY),
          duplicateIds,
        });
      }
      lanes.push(benches);
    }
    const first = lanes[0] as Bench[];
    const report: SuiteReport = {
      seed: options.seed,
      cases: 0,
      faults: 0,
      transcripts: 0,
      violations: [],
      unhandledRejections,
      duplicateIdsLeftOut: first
        .filter((b) => b.adapter.callIds && !b.duplicateIds)
        .map((b) => b.adapter.name),
      ms: 0,
    };
    const cases = casesOf(options.seed, first.length, options.cases);
    // Lanes run cases side by side (each case has its own simulator and folder; each lane its own checkers):
    // most of a case is waiting on sockets, timers and fsync.
    const lane = async (benches: Bench[]) => {
      for (;;) {
        if (options.faults !== undefined && report.faults >= options.faults) return;
        const next = cases.next();
        if (next.done) return;
        const [index, c] = next.value;
        const bench = benches[c.adapter] as Bench;
        const result = await runFaultCase(c, bench);
        report.cases++;
        report.faults += result.faults;
        report.transcripts += result.transcripts;
        for (const problem of result.violations) {
          report.violations.push({ index, adapter: bench.adapter.name, problem, case: c });
        }
      }
    };
    await Promise.all(lanes.map(lane));
    // Let a late rejection of the last case surface before counting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    report.ms = Math.round(performance.now() - started);
    return report;
  } finally {
    process.off("unhandledRejection", onRejection);
    for (const bench of lanes.flat()) await bench.checker.close();
  }
}

/** Case `i` of a seed, generated in chunks (the same seed, the same cases, however many are drawn). */
function* casesOf(seed: number, adapters: number, count: number): Generator<[number, FaultCase]> {
  const chunk = 200;
  for (let start = 0; start < count; start += chunk) {
    const batch = fc.sample(faultCase(adapters), {
      seed: seed + start,
      numRuns: Math.min(chunk, count - start),
    });
    for (const [i, c] of batch.entries()) yield [start + i, c];
  }
}

/** The report as printed: the three numbers first, then each violation with its counterexample. */
export function formatSuiteReport(report: SuiteReport): string {
  const lines = [
    `fault suite (seed ${report.seed}): ${report.cases} runs in ${(report.ms / 1000).toFixed(1)} s`,
    `faults injected:      ${report.faults}`,
    `transcripts checked:  ${report.transcripts}`,
    `violations:           ${report.violations.length + report.unhandledRejections.length}`,
  ];
  if (report.duplicateIdsLeftOut.length > 0) {
    lines.push(
      `duplicate ids left out for ${report.duplicateIdsLeftOut.join(", ")}: the decoder keeps them as they came`,
    );
  }
  for (const v of report.violations.slice(0, 20)) {
    lines.push(`- case ${v.index} (${v.adapter}): ${v.problem}`, `  ${JSON.stringify(v.case)}`);
  }
  for (const r of report.unhandledRejections.slice(0, 10)) lines.push(`- unhandled rejection: ${r}`);
  return lines.join("\n");
}
