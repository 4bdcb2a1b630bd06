import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "..", "scripts", "long-functions.mjs");
const run = (limit?: number) =>
  promisify(execFile)(process.execPath, [script, ...(limit ? [String(limit)] : [])]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );

describe("the size of functions in src/", () => {
  it("none is over 200 lines but the JSON scanner's scan, inlined for a measured reason", async () => {
    const { code, stdout } = await run();
    expect(stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^src\/stream\/json-scanner\.ts:\d+ scan \d+ \(allowed\)$/),
    ]);
    expect(code).toBe(0);
  });

  it("the check finds long functions (at a lower limit some are over it, and it fails)", async () => {
    const { code, stdout } = await run(120);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^src\/\S+\.ts:\d+ \S+ \d+$/m);
  });
});
