import { describe, expect, it } from "vitest";
import type { Message } from "../messages/index.js";
import { BackgroundAgents, backgroundStartedText, lostBackgroundAgents } from "./background-agents.js";

const result = (id: string, content: string): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content }],
});

describe("a resumed session's background agents", () => {
  const history: Message[] = [
    { role: "user", content: [{ type: "text", text: "go" }] },
    result("t1", backgroundStartedText("a00000001", "Explore")),
    result("t2", backgroundStartedText("a00000002", "general-purpose")),
    result("t3", backgroundStartedText("a00000003", "Explore")),
    result("t4", "Stopped agent a00000003 (Explore: look)."),
    {
      role: "user",
      content: [
        { type: "text", text: '<system-reminder>\n<background-agent id="a00000001" agent="Explore">' },
      ],
    },
  ];

  it("those started and never reported are the ones the earlier process left running", () => {
    expect(lostBackgroundAgents(history)).toEqual(["a00000002"]);
  });

  it("the first request of the resumed session names them, once", async () => {
    const source = new BackgroundAgents().reminderSource();
    const state = { turn: 1, round: 1, messages: history, now: new Date(), firstUserMessage: false };
    const first = await source.collect(state);
    expect(first).toContain("were still running when the previous session ended");
    expect(first).toContain("a00000002");
    expect(first).not.toContain("a00000001");
    expect(await source.collect({ ...state, round: 2 })).toBeUndefined();
  });
});
