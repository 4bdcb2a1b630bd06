import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";

// Issue 21 (smaller): many parallel Bash calls printed a MaxListenersExceededWarning. Nothing leaked: every call
// added its abort listener to the turn's one shared signal. Each call now has a signal of its own.

let sim: Simulator | undefined;
const onWarning = (warning: Error) => warnings.push(warning);
const warnings: Error[] = [];
afterEach(async () => {
  process.off("warning", onWarning);
  warnings.length = 0;
  await sim?.close();
  sim = undefined;
});

describe("twenty parallel Bash calls", () => {
  it("run without a MaxListenersExceededWarning, turn after turn", async () => {
    process.on("warning", onWarning);
    const { cwd, home } = tempWorkspace();
    const calls = Array.from({ length: 20 }, (_, i) => ({
      type: "tool_use" as const,
      id: `toolu_${i}`,
      name: "Bash",
      input: { command: `echo call-${i}` },
    }));
    const s = await simulatorEnv({
      script: [{ content: calls }, { content: calls }, { content: [{ type: "text", text: "ok" }] }],
    });
    sim = s.sim;
    const out = await runMitsu(["-p", "go", "--permission-mode", "bypassPermissions"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    expect(JSON.stringify(sim.requests[2]?.body.messages.at(-1))).toContain("call-19");
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });
});
