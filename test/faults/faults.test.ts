import { describe, expect, it } from "vitest";
import { formatSuiteReport, runFaultSuite } from "./fault-suite.js";

/**
 * The seeded slice of the fault suite (issue 10). `npm run faults` runs the big one: MITSU_FAULTS sets the
 * number of faults to reach (and MITSU_FAULTS_SEED the seed).
 */
const big = Number(process.env.MITSU_FAULTS ?? 0);
const seed = Number(process.env.MITSU_FAULTS_SEED ?? 20261201);

describe("fault suite", () => {
  it(
    big > 0 ? `${big} faults` : "a seeded slice: random scripts × faults over every adapter",
    async () => {
      const report = await runFaultSuite(
        big > 0 ? { seed, cases: 1_000_000, faults: big } : { seed, cases: 120, faults: 300 },
      );
      const text = formatSuiteReport(report);
      if (big > 0) console.log(text);
      expect(report.faults).toBeGreaterThanOrEqual(big > 0 ? big : 300);
      expect(text).toContain("violations:           0\n".trimEnd());
      expect(report.violations.map((v) => `${v.adapter}: ${v.problem}`)).toEqual([]);
      expect(report.unhandledRejections).toEqual([]);
    },
    big > 0 ? 600_000 : 60_000,
  );
});
