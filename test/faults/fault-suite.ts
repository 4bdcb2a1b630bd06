import fc from "fast-check";
import { startSimulator } from "../../src/simulator/index.js";
import { ADAPTERS } from "../conformance/conformance-adapters.js";
import { type FaultCase, faultCase } from "./fault-case.js";
import { type Bench, FAST_RETRY, runFaultCase } from "./run-fault-case.js";

/** The outcome of a suite run: what `npm run faults` prints. */
export interface SuiteReport {
  seed: number;
  cases: number;
  faults: number;
  transcripts: number;
  /** Every violation, with the case that produced it (a counterexample to replay). */
  violations: Array<{ index: number; adapter: string; problem: string; case: FaultCase }>;
  unhandledRejections: string[];
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
}): Promise<SuiteReport> {
  const started = performance.now();
  const unhandledRejections: string[] = [];
  const onRejection = (reason: unknown) => unhandledRejections.push(String(reason));
  process.on("unhandledRejection", onRejection);
  const benches: Bench[] = [];
  try {
    for (const adapter of ADAPTERS) {
      const checker = await startSimulator();
      benches.push({ adapter, checker, checkerProvider: adapter.provider(checker, FAST_RETRY) });
    }
    const report: SuiteReport = {
      seed: options.seed,
      cases: 0,
      faults: 0,
      transcripts: 0,
      violations: [],
      unhandledRejections,
      ms: 0,
    };
    const cases = fc.sample(faultCase(benches.length), { seed: options.seed, numRuns: options.cases });
    for (const [index, c] of cases.entries()) {
      if (options.faults !== undefined && report.faults >= options.faults) break;
      const bench = benches[c.adapter] as Bench;
      const result = await runFaultCase(c, bench);
      report.cases++;
      report.faults += result.faults;
      report.transcripts += result.transcripts;
      for (const problem of result.violations) {
        report.violations.push({ index, adapter: bench.adapter.name, problem, case: c });
      }
    }
    // Let a late rejection of the last case surface before counting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    report.ms = Math.round(performance.now() - started);
    return report;
  } finally {
    process.off("unhandledRejection", onRejection);
    for (const bench of benches) await bench.checker.close();
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
  for (const v of report.violations.slice(0, 20)) {
    lines.push(`- case ${v.index} (${v.adapter}): ${v.problem}`, `  ${JSON.stringify(v.case)}`);
  }
  for (const r of report.unhandledRejections.slice(0, 10)) lines.push(`- unhandled rejection: ${r}`);
  return lines.join("\n");
}
