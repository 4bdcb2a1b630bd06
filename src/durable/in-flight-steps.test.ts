import { describe, expect, it, vi } from "vitest";
import { InFlightSteps } from "./in-flight-steps.js";

describe("InFlightSteps", () => {
  it("gives a later attempt the running action's result instead of starting it again, until the step is journaled", async () => {
    const steps = new InFlightSteps();
    let calls = 0;
    let finish = (_value: string) => {};
    const action = () => {
      calls++;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    };
    const first = steps.run("inv-1\u0000model turn 3", action);
    // The first attempt was cut off; the next one reaches the same step while the call still runs.
    const second = steps.run("inv-1\u0000model turn 3", action);
    finish("the answer");
    expect(await second).toBe("the answer");
    expect(await first).toBe("the answer");
    expect(calls).toBe(1);
    // Another invocation, or another step, is a call of its own.
    const other = steps.run("inv-2\u0000model turn 3", async () => "other");
    expect(await other).toBe("other");
    expect(calls).toBe(1);
    // Journaled: forgotten (a replay takes the journal's record; a new run of the key is a new call).
    steps.done("inv-1\u0000model turn 3");
    steps.done("inv-2\u0000model turn 3");
    expect(steps.size).toBe(0);
  });

  it("forgets a failed action: the next attempt runs it again", async () => {
    const steps = new InFlightSteps();
    await expect(steps.run("k", async () => Promise.reject(new Error("lost")))).rejects.toThrow("lost");
    expect(steps.size).toBe(0);
    expect(await steps.run("k", async () => "ran again")).toBe("ran again");
  });

  it("lets go of a journaled step's result at once, not when its 30-minute bound runs out", async () => {
    vi.useFakeTimers();
    try {
      const steps = new InFlightSteps();
      expect(await steps.run("inv-1\u0000model turn 1", async () => "answer")).toBe("answer");
      steps.done("inv-1\u0000model turn 1");
      // No timer is left holding the action (and its answer) for the bound.
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
