import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A few of the MCP conformance framework's client scenarios, run against mitsu's client through its adapter
 * (the whole list: `node test/mcp/conformance/run-conformance.mjs`; it needs the built dist/, as npm test makes).
 */
describe("the MCP conformance framework's client scenarios", () => {
  it("initialize, tools_call, OAuth metadata discovery, a scope step-up and elicitation defaults pass", () => {
    const run = spawnSync(
      process.execPath,
      [
        join(import.meta.dirname, "run-conformance.mjs"),
        "initialize",
        "tools_call",
        "auth/metadata-default",
        "auth/scope-step-up",
        "elicitation-sep1034-client-defaults",
      ],
      { encoding: "utf8", timeout: 100_000 },
    );
    const lines = run.stdout.trim().split("\n");
    expect(lines.map((line) => line.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      "pass initialize",
      "pass tools_call",
      "pass auth/metadata-default",
      "pass auth/scope-step-up",
      "pass elicitation-sep1034-client-defaults",
    ]);
    expect(run.status).toBe(0);
  }, 120_000);
});
