#!/usr/bin/env node
// Runs the MCP conformance framework's client scenarios against mitsu's client (mitsu-client.mjs, over the built
// dist/) and prints one line per scenario. Usage: node test/mcp/conformance/run-conformance.mjs [scenario…]
// (default: all client scenarios). Exits 1 when a scenario outside baseline.yml fails, or one inside it passes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const cli = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const node = (args, cwd) =>
  spawnSync(process.execPath, ["--import", join(here, "register-fs-shim.mjs"), cli, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
  });

const allScenarios = () =>
  node(["list"], root)
    .stdout.split("Client scenarios")[1]
    .match(/^ {2}- (\S+)/gm)
    .map((line) => line.slice(4));
const scenarios = process.argv.length > 2 ? process.argv.slice(2) : allScenarios();
const expectedFailures = new Set(
  readFileSync(join(here, "baseline.yml"), "utf8")
    .match(/^ {2}- (\S+)/gm)
    .map((l) => l.slice(4)),
);
const cwd = mkdtempSync(join(tmpdir(), "mitsu-conformance-results-"));
let unexpected = 0;
for (const scenario of scenarios) {
  const run = node(
    ["client", "--command", `${process.execPath} ${join(here, "mitsu-client.mjs")}`, "--scenario", scenario],
    cwd,
  );
  const output = `${run.stdout}${run.stderr}`;
  const passed = /OVERALL: PASSED/.test(output);
  const counts = output.match(/Passed: (\d+\/\d+)/)?.[1] ?? "?";
  const expected = expectedFailures.has(scenario) ? !passed : passed;
  if (!expected) unexpected++;
  console.log(
    `${passed ? "pass" : "FAIL"}  ${scenario.padEnd(44)} ${counts}${expected ? "" : "  (unexpected)"}`,
  );
}
process.exit(unexpected > 0 ? 1 : 0);
