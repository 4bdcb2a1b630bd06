import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Simulator } from "../../src/simulator/index.js";
import type { SimTurn } from "../../src/simulator/types.js";
import { tempWorkspace } from "../cli/cli-harness.js";
import { VirtualScreen } from "../support/virtual-screen.js";
import { count, isChildRequest, routedSimulator } from "./agents-support.js";

/** A keyboard: what is written to it reaches mitsu as typed at a terminal (`\r` is Enter). */
class FakeTty extends PassThrough {
  isTTY = true;
}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });

describe("a background agent at the terminal", () => {
  it("finishing while the prompt is idle starts a turn that says so, with its answer", async () => {
    const routed = await routedSimulator(
      [
        {
          content: [
            {
              type: "tool_use",
              id: "call_bg",
              name: "Task",
              input: {
                description: "count files",
                prompt: "How many?",
                subagent_type: "Explore",
                run_in_background: true,
              },
            },
          ],
        },
        text("Started an agent."),
        text("The agent counted 7 files."),
      ],
      [{ ...text("There are 7 files."), latencyMs: 600 }],
    );
    sim = routed.sim;
    const { cwd, home } = tempWorkspace();
    const keyboard = new FakeTty();
    const screen = new VirtualScreen();
    const exit = main([], {
      stdin: keyboard,
      stdout: screen,
      stderr: new VirtualScreen(),
      cwd,
      home,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    });
    keyboard.write("count the files in the background\r");
    await screen.waitFor("Started an agent.");
    // The status line under the run counts it while it runs.
    await screen.waitFor("1 background agent");
    // Nobody types: the agent's end starts the next turn by itself.
    await screen.waitFor("The agent counted 7 files.", 1, 15_000);
    expect(screen.text).toMatch(
      /Background agent finished: a[0-9a-f]{8} \(Explore: count files, completed\)/,
    );
    const mains = sim.requests.filter((r) => !isChildRequest(r));
    expect(mains).toHaveLength(3);
    expect(count(JSON.stringify(mains[2]!.body), "There are 7 files.")).toBe(1);
    keyboard.write("/exit\r");
    expect(await exit).toBe(0);
  });

  it("/tasks lists the agents; /tasks send, show and stop act on one", async () => {
    const routed = await routedSimulator(
      [
        {
          content: [
            {
              type: "tool_use",
              id: "call_bg",
              name: "Task",
              input: {
                description: "slow count",
                prompt: "How many?",
                subagent_type: "Explore",
                run_in_background: true,
              },
            },
          ],
        },
        text("Started an agent."),
      ],
      [{ ...text("never shown"), latencyMs: 30_000 }],
    );
    sim = routed.sim;
    const { cwd, home } = tempWorkspace();
    const keyboard = new FakeTty();
    const screen = new VirtualScreen();
    const exit = main([], {
      stdin: keyboard,
      stdout: screen,
      stderr: new VirtualScreen(),
      cwd,
      home,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    });
    keyboard.write("start a slow agent\r");
    await screen.waitFor("Started an agent.");
    keyboard.write("/tasks\r");
    await screen.waitFor("Explore: slow count (background");
    const id = /(a[0-9a-f]{8}) {2}running/.exec(screen.text)?.[1];
    expect(id).toBeDefined();
    keyboard.write(`/tasks send ${id} also count the tests\r`);
    await screen.waitFor(`Message queued for agent ${id}`);
    keyboard.write(`/tasks stop ${id}\r`);
    await screen.waitFor(`Stopped ${id}.`);
    keyboard.write(`/tasks show ${id}\r`);
    await screen.waitFor("> How many?");
    keyboard.write("/exit\r");
    expect(await exit).toBe(0);
  });
});
