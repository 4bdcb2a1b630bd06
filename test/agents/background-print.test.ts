import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import type { SimTurn } from "../../src/simulator/types.js";
import { runMitsu, tempWorkspace } from "../cli/cli-harness.js";
import { count, isChildRequest, routedSimulator } from "./agents-support.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });
const bgTask: SimTurn = {
  content: [
    {
      type: "tool_use",
      id: "call_bg",
      name: "Task",
      input: {
        description: "count files",
        prompt: "How many files?",
        subagent_type: "Explore",
        run_in_background: true,
      },
    },
  ],
};

describe("background agents in print mode (mitsu -p)", () => {
  it("waits for a background agent after the answer, then starts a turn that says it finished", async () => {
    const routed = await routedSimulator(
      [bgTask, text("I started an agent; waiting for it."), text("The agent counted 7 files.")],
      [{ ...text("There are 7 files."), latencyMs: 400 }],
    );
    sim = routed.sim;
    const { cwd, home } = tempWorkspace();
    const env = { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
    const out = await runMitsu(["-p", "count the files in the background"], { cwd, home, env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("I started an agent; waiting for it.");
    expect(out.stdout).toContain("The agent counted 7 files.");
    const mains = sim.requests.filter((r) => !isChildRequest(r));
    expect(mains).toHaveLength(3);
    const last = JSON.stringify(mains[2]!.body);
    expect(last).toMatch(/Background agent finished: a[0-9a-f]{8} \(Explore: count files, completed\)/);
    expect(count(last, "There are 7 files.")).toBe(1);
  });

  it("--output-format stream-json: the background agent's messages are lines tagged with its Task call", async () => {
    const routed = await routedSimulator(
      [bgTask, text("Started."), text("7 files.")],
      [{ ...text("There are 7 files."), latencyMs: 200 }],
    );
    sim = routed.sim;
    const { cwd, home } = tempWorkspace();
    const env = { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
    const out = await runMitsu(["-p", "count", "--output-format", "stream-json", "--verbose"], {
      cwd,
      home,
      env,
    });
    expect(out.code).toBe(0);
    const lines = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const child = lines.filter((l) => l.parent_tool_use_id === "call_bg");
    expect(
      child.some(
        (l) => l.type === "assistant" && JSON.stringify(l.message.content).includes("There are 7 files."),
      ),
    ).toBe(true);
    expect(lines.at(-1).type).toBe("result");
    expect(lines.at(-1).result).toBe("7 files.");
  });

  it("MITSU_BACKGROUND_WAIT=0: the result comes after the answer; the agent is stopped", async () => {
    const routed = await routedSimulator(
      [bgTask, text("Started it.")],
      [{ ...text("never used"), latencyMs: 20_000 }],
    );
    sim = routed.sim;
    const { cwd, home } = tempWorkspace();
    const env = { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url, MITSU_BACKGROUND_WAIT: "0" };
    const started = performance.now();
    const out = await runMitsu(["-p", "start one", "--output-format", "json"], { cwd, home, env });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).result).toBe("Started it.");
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(sim.requests.filter((r) => !isChildRequest(r))).toHaveLength(2);
  });
});
