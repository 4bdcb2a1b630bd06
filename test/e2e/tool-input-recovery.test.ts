import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { E2eHarness } from "./e2e-harness.js";

// A tool never runs on input it did not fully receive: unparseable input and a max_tokens cut, end to end.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

describe("tool input recovery through the loop", () => {
  it("answers an eager Write whose input is invalid JSON with {INVALID_JSON: raw}, and writes nothing", async () => {
    // A complete block, but not JSON (the trailing comma): not a cut, so no retry helps.
    const raw = '{"file_path": "bad.txt", "content": "never written",}';
    const { result, events } = await h.run([
      { content: [{ type: "tool_use", id: "toolu_bad", name: "Write", rawInput: raw }] },
    ]);
    expect(result.reason).toBe("end_turn");
    // Write streams eagerly, so the simulator released the input unchecked, as the real API does.
    expect(
      h.sim.requests[0]!.body.tools.find((tool: { name: string }) => tool.name === "Write"),
    ).toMatchObject({
      eager_input_streaming: true,
    });
    expect(h.sent("bad")).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_bad",
      content: JSON.stringify({ INVALID_JSON: raw }),
      is_error: true,
    });
    expect(h.exists("bad.txt")).toBe(false);
    expect(h.sim.requests).toHaveLength(2);
    expect(events.filter((event) => event.type === "tool-call-end")).toHaveLength(1);
  });

  it("retries a Write cut at max_tokens with max_tokens doubled, and writes the file once, whole", async () => {
    const content = `${"A line of the file, long enough to need room.\n".repeat(6)}The end.\n`;
    const input = { file_path: "big.txt", content };
    // max_tokens 64 is 256 characters at the simulator's 4 per token: the input (about 330) is cut at
    // first and fits once doubled. The cut leaves the turn queued, so the retry gets the same answer.
    expect(JSON.stringify(input).length).toBeGreaterThan(256);
    expect(JSON.stringify(input).length).toBeLessThan(512);
    const { result, events } = await h.run(
      [{ content: [{ type: "tool_use", id: "toolu_big", name: "Write", input }] }],
      {
        maxTokens: 64,
      },
    );
    expect(result.reason).toBe("end_turn");
    expect(h.sim.requests.map((request) => request.body.max_tokens)).toEqual([64, 128, 64]);
    expect(events.filter((event) => event.type === "warning")).toEqual([
      expect.objectContaining({ code: "max_tokens_retry" }),
    ]);
    // The cut answer was dropped, not sent back: the retry's request is the first one again.
    expect(h.sim.requests[1]!.body.messages).toEqual(h.sim.requests[0]!.body.messages);
    const runs = events.filter((event) => event.type === "tool-call-end");
    expect(runs).toHaveLength(1);
    expect(await h.text("big.txt")).toBe(content);
    expect(h.sent("big")).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_big",
      content: `Created big.txt (7 lines, ${content.length} bytes).`,
    });
    expect(h.sentResults()).toHaveLength(1);
  });
});
