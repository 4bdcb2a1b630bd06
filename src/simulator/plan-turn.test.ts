import { describe, expect, it } from "vitest";
import { chunkText } from "./chunk-text.js";
import { planTurn } from "./plan-turn.js";
import { SimScriptError } from "./script-error.js";
import type { SimTurn } from "./types.js";

let n = 0;
const id = () => `toolu_${++n}`;

describe("planTurn", () => {
  const turn: SimTurn = {
    content: [
      { type: "thinking", thinking: "abcdef", signature: "sig" },
      { type: "text", text: "ghij" },
      { type: "tool_use", name: "t", input: { a: 1 } },
    ],
  };

  it("keeps a turn that fits, with the default stop reason and output count", () => {
    const plan = planTurn(turn, 1000, id);
    expect(plan.cut).toBe(false);
    expect(plan.stopReason).toBe("tool_use");
    expect(plan.outputChars).toBe(6 + 4 + '{"a":1}'.length);
    expect(plan.blocks.map((b) => b.complete)).toEqual([true, true, true]);
  });

  it("cuts a thinking block mid-way: it is the last block, incomplete, and max_tokens", () => {
    const plan = planTurn(turn, 3, id);
    expect(plan).toMatchObject({ cut: true, stopReason: "max_tokens", outputChars: 3 });
    expect(plan.blocks).toEqual([{ type: "thinking", content: "abc", signature: "sig", complete: false }]);
  });

  it("a limit exactly at a block's end keeps that block whole and starts no other", () => {
    const plan = planTurn(turn, 10, id);
    expect(plan.blocks.map((b) => [b.type, b.complete])).toEqual([
      ["thinking", true],
      ["text", true],
    ]);
    expect(plan.stopReason).toBe("max_tokens");
  });

  it("end_turn without tools; an explicit stop reason wins when not cut", () => {
    expect(planTurn({ content: [{ type: "text", text: "x" }] }, 10, id).stopReason).toBe("end_turn");
    expect(
      planTurn({ content: [{ type: "text", text: "x" }], stopReason: "pause_turn" }, 10, id).stopReason,
    ).toBe("pause_turn");
  });

  it("rejects script mistakes with SimScriptError", () => {
    expect(() => planTurn({ content: [{ type: "text", text: 3 as unknown as string }] }, 10, id)).toThrow(
      SimScriptError,
    );
    expect(() => planTurn({ content: [{ type: "image" } as never] }, 10, id)).toThrow(
      /unknown block type "image"/,
    );
  });
});

describe("chunkText", () => {
  it("splits by code points and gives nothing for an empty text", () => {
    expect(chunkText("abcdefg", 3)).toEqual(["abc", "def", "g"]);
    expect(chunkText("a😀b", 1)).toEqual(["a", "😀", "b"]);
    expect(chunkText("", 4)).toEqual([]);
  });
});
