import { describe, expect, it } from "vitest";
import { AsyncQueue } from "./async-queue.js";

describe("AsyncQueue", () => {
  it("delivers items pushed before and while the consumer waits, in order, and ends on close", async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const item of queue) seen.push(item);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(2);
    queue.push(3);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(4);
    queue.close();
    await consumer;
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("refuses a push after close instead of losing the item", () => {
    const queue = new AsyncQueue<string>();
    queue.close();
    expect(() => queue.push("late")).toThrow("AsyncQueue: push after close");
  });
});
