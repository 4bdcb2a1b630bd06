import { describe, expect, it } from "vitest";
import { ToolState } from "../loop/tool-state.js";
import { ACTIVE_SKILLS } from "../skills/active-skills.js";
import { READ_TRACKER } from "../tools/read-tracker.js";
import { toolStateDelta } from "./tool-state-delta.js";

const KEYS = [READ_TRACKER, ACTIVE_SKILLS] as never[];

describe("toolStateDelta", () => {
  it("records the files a call Read or changed, not the ones Read before; loading it gives the state after", () => {
    const state = new ToolState();
    const tracker = state.get(READ_TRACKER);
    for (let i = 0; i < 100; i++) tracker.record(`/w/file-${i}.ts`, { mtimeMs: i, size: i });
    const before = state.snapshot();
    tracker.record("/w/new.ts", { mtimeMs: 1, size: 2 });
    tracker.record("/w/file-7.ts", { mtimeMs: 70, size: 7 }, "write");
    const after = state.snapshot();
    const delta = toolStateDelta(before, after);
    expect(delta).toEqual({
      "read-tracker": [
        ["/w/file-7.ts", 70, 7, "write"],
        ["/w/new.ts", 1, 2, "read"],
      ],
    });
    const replayed = new ToolState();
    replayed.restore(before, KEYS);
    replayed.restore(delta, KEYS);
    expect(replayed.snapshot()).toEqual(after);
  });

  it("records nothing for an unchanged state, a new slot whole", () => {
    const state = new ToolState();
    state.get(READ_TRACKER).record("/w/a", { mtimeMs: 1, size: 1 });
    const before = state.snapshot();
    expect(toolStateDelta(before, state.snapshot())).toEqual({});
    state.get(ACTIVE_SKILLS).set("deploy", ["Bash(git push:*)"]);
    expect(toolStateDelta(before, state.snapshot())).toEqual({
      "active-skills": [["deploy", ["Bash(git push:*)"]]],
    });
  });

  it("records a slot whole when an entry went (a change that merging could not replay)", () => {
    const before = {
      "read-tracker": [
        ["/w/a", 1, 1, "read"],
        ["/w/b", 1, 1, "read"],
      ],
    };
    const after = { "read-tracker": [["/w/a", 1, 1, "read"]] };
    expect(toolStateDelta(before, after)).toEqual(after);
  });
});
