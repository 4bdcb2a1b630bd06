import { describe, expect, it } from "vitest";
import { coalesceDeltas } from "./coalesce-deltas.js";
import type { StreamEvent } from "./stream-event.js";

describe("coalesceDeltas", () => {
  it("merges adjacent deltas of one block, keeping other events and the order", () => {
    const events: StreamEvent[] = [
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "Hel" },
      { type: "text-delta", id: "0", delta: "lo" },
      { type: "text-end", id: "0", text: "Hello" },
      { type: "tool-input-start", id: "1", toolUseId: "t", name: "Write" },
      {
        type: "tool-input-delta",
        id: "1",
        delta: '{"file_path":"a',
        strings: [{ path: ["file_path"], text: "a" }],
      },
      {
        type: "tool-input-delta",
        id: "1",
        delta: '.ts","content":"x',
        strings: [
          { path: ["file_path"], text: ".ts" },
          { path: ["content"], text: "x" },
        ],
      },
      { type: "tool-input-delta", id: "1", delta: 'y"}', strings: [{ path: ["content"], text: "y" }] },
    ];
    expect(coalesceDeltas(events)).toEqual([
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "Hello" },
      { type: "text-end", id: "0", text: "Hello" },
      { type: "tool-input-start", id: "1", toolUseId: "t", name: "Write" },
      {
        type: "tool-input-delta",
        id: "1",
        delta: '{"file_path":"a.ts","content":"xy"}',
        strings: [
          { path: ["file_path"], text: "a.ts" },
          { path: ["content"], text: "xy" },
        ],
      },
    ]);
  });

  it("does not merge deltas of different blocks or kinds", () => {
    const events: StreamEvent[] = [
      { type: "thinking-delta", id: "0", delta: "a" },
      { type: "text-delta", id: "0", delta: "b" },
      { type: "text-delta", id: "1", delta: "c" },
    ];
    expect(coalesceDeltas(events)).toEqual(events);
  });

  it("leaves the input arrays' chunks untouched", () => {
    const first = { path: ["content"], text: "x" } as const;
    const events: StreamEvent[] = [
      { type: "tool-input-delta", id: "1", delta: '"x', strings: [first] },
      { type: "tool-input-delta", id: "1", delta: 'y"', strings: [{ path: ["content"], text: "y" }] },
    ];
    coalesceDeltas(events);
    expect(first.text).toBe("x");
  });
});
