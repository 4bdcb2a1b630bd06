import { describe, expect, it } from "vitest";
import { FileLocks } from "./file-locks.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("FileLocks", () => {
  it("runs tasks of one key one at a time, in the order they asked, and other keys alongside", async () => {
    const locks = new FileLocks();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      locks.run("/a", task("a1")),
      locks.run("/a", task("a2")),
      locks.run("/b", task("b1")),
      locks.run("/a", task("a3")),
    ]);
    expect(results).toEqual(["a1", "a2", "b1", "a3"]);
    const a = log.filter((line) => line.startsWith("a"));
    expect(a).toEqual(["a1 start", "a1 end", "a2 start", "a2 end", "a3 start", "a3 end"]);
    // b1 started before a1 ended: different keys do not wait for each other.
    expect(log.indexOf("b1 start")).toBeLessThan(log.indexOf("a1 end"));
    expect(locks.size).toBe(0);
  });

  it("a failing task passes its error on and does not block the next one", async () => {
    const locks = new FileLocks();
    const failed = locks.run("/a", async () => {
      throw new Error("boom");
    });
    const next = locks.run("/a", async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ran");
    expect(locks.size).toBe(0);
  });
});
