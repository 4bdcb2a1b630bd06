import { describe, expect, it } from "vitest";
import { ToolState, toolStateKey } from "./tool-state.js";

describe("ToolState", () => {
  it("creates a slot's value once, on first get, and keys slots by identity, not by name", () => {
    let made = 0;
    const a = toolStateKey("files", () => {
      made++;
      return new Set<string>();
    });
    const b = toolStateKey("files", () => new Set<string>());
    const state = new ToolState();
    expect(state.peek(a)).toBeUndefined();
    state.get(a).add("x");
    state.get(a).add("y");
    expect(made).toBe(1);
    expect([...state.get(a)]).toEqual(["x", "y"]);
    expect(state.get(b).size).toBe(0);
    expect(state.names()).toEqual(["files", "files"]);
  });

  it("clear() starts every slot over", () => {
    const key = toolStateKey("n", () => ({ n: 0 }));
    const state = new ToolState();
    state.get(key).n = 5;
    state.clear();
    expect(state.peek(key)).toBeUndefined();
    expect(state.get(key).n).toBe(0);
  });

  it("snapshot() saves the persistable slots in use; restore() merges them into the named slots", () => {
    const seen = toolStateKey("seen", () => new Set<string>(), {
      save: (set) => [...set],
      load: (data, current) => {
        const set = current ?? new Set<string>();
        for (const item of data as string[]) set.add(item);
        return set;
      },
    });
    const local = toolStateKey("local", () => ({ n: 1 }));
    const a = new ToolState();
    a.get(seen).add("x");
    a.get(local).n = 2;
    expect(a.snapshot()).toEqual({ seen: ["x"] });
    const b = new ToolState();
    const live = b.get(seen);
    live.add("y");
    b.restore({ ...a.snapshot(), local: { n: 9 } }, [seen, local] as never[]);
    expect(b.get(seen)).toBe(live);
    expect([...live].sort()).toEqual(["x", "y"]);
    expect(b.peek(local)).toBeUndefined();
  });
});
