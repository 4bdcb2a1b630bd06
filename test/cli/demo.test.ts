import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { demoScenario } from "../../src/cli/demo/demo-scenario.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("the demo scenario, end to end through the command", () => {
  it("mitsu demo shows the work and the answer, without per-turn debug lines", () => {
    const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");
    const { home } = tempWorkspace();
    const run = spawnSync(process.execPath, [bin, "demo", "--clean"], {
      env: { PATH: process.env.PATH, HOME: home },
      encoding: "utf8",
    });
    expect(run.status).toBe(0);
    // What the terminal shows: both streams.
    const out = `${run.stdout}${run.stderr}`;
    expect(out).toContain("Created src/kelvin.js");
    expect(out).toContain("requests served by the simulator");
    expect(out).not.toMatch(/↳ turn \d/);
  });

  it("fixes the bug, runs the tests, writes the new module, with its content streamed live", async () => {
    const { cwd, home } = tempWorkspace();
    const s = await simulatorEnv({ script: demoScenario(cwd), inputChunk: 24 });
    sim = s.sim;
    const out = await runMitsu(
      [
        "-p",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash(node --test:*),Bash(grep:*)",
        "fix it",
      ],
      { cwd, home, env: s.env },
    );
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(readFileSync(join(cwd, "src/temperature.js"), "utf8")).toContain("(celsius * 9) / 5 + 32");
    expect(existsSync(join(cwd, "src/kelvin.js"))).toBe(true);
    // The new module's content appeared on screen as it streamed, under its JSON path.
    expect(out.stdout).toContain("content: /**");
    expect(out.stdout).toContain("export function toKelvin(celsius)");
    // The Edit's diff, and the test run's result, reached the terminal.
    expect(out.stdout).toMatch(/^\s+\+\s*return \(celsius \* 9\) \/ 5 \+ 32;/m);
    expect(sim.requests.filter((r) => r.status === 200)).toHaveLength(7);
    const bash = JSON.stringify(sim.requests[5]?.body.messages.at(-1).content[0].content);
    expect(bash).toContain("pass 2");
    execFileSync(process.execPath, ["--test", "test/"], { cwd });
  });
});
