import { describe, expect, it } from "vitest";
import type { Message, UserMessage } from "../messages/index.js";
import {
  injectReminders,
  isReminderBlock,
  ReminderEngine,
  type ReminderSource,
  reminderBlock,
} from "./reminder-engine.js";

const user = (text: string): UserMessage => ({ role: "user", content: [{ type: "text", text }] });
const state = (messages: Message[] = [user("hi")]) => ({
  turn: 1,
  messages,
  now: new Date(2025, 0, 1),
  firstUserMessage: true,
});
const fixed = (name: string, text: () => string | undefined): ReminderSource => ({ name, collect: text });

describe("reminder blocks", () => {
  it("wraps the text in <system-reminder> tags as a separate text block", () => {
    const block = reminderBlock("Be brief.");
    expect(block).toEqual({ type: "text", text: "<system-reminder>\nBe brief.\n</system-reminder>" });
    expect(isReminderBlock(block)).toBe(true);
    expect(isReminderBlock({ type: "text", text: "<system-reminder> typed by a user" })).toBe(false);
  });

  it("goes before the user's text", () => {
    const message = user("Add a login page");
    const out = injectReminders(message, [reminderBlock("A"), reminderBlock("B")]);
    expect(out.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual([
      "<system-reminder>\nA\n</system-reminder>",
      "<system-reminder>\nB\n</system-reminder>",
      "Add a login page",
    ]);
    expect(message.content).toHaveLength(1);
  });

  it("goes after the tool results when the message carries them", () => {
    const message: UserMessage = {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "one" },
        { type: "tool_result", tool_use_id: "t2", content: "two" },
        { type: "text", text: "and also this" },
      ],
    };
    const out = injectReminders(message, [reminderBlock("R")]);
    expect(out.content.map((b) => b.type)).toEqual(["tool_result", "tool_result", "text", "text"]);
    expect(isReminderBlock(out.content[2]!)).toBe(true);
    expect(out.content[3]).toEqual({ type: "text", text: "and also this" });
  });
});

describe("ReminderEngine", () => {
  it("asks every source in order and skips silent ones", async () => {
    const engine = new ReminderEngine({
      sources: [fixed("a", () => "alpha"), fixed("quiet", () => undefined), fixed("b", () => "beta")],
    });
    const found = await engine.collect(state());
    expect(found.map((r) => [r.source, r.text])).toEqual([
      ["a", "alpha"],
      ["b", "beta"],
    ]);
  });

  it("repeats an unchanged reminder only every N rounds, and sends a changed one at once", async () => {
    let text = "v1";
    const engine = new ReminderEngine({ sources: [fixed("s", () => text)], remindEvery: 3 });
    const sent: boolean[] = [];
    for (let round = 1; round <= 8; round++) {
      if (round === 5) text = "v2";
      sent.push((await engine.collect(state())).length === 1);
    }
    // v1 at rounds 1 and 4; v2 at once in round 5, then again at 8.
    expect(sent).toEqual([true, false, false, true, true, false, false, true]);
  });

  it("passes the round and the state to sources", async () => {
    const seen: number[] = [];
    const engine = new ReminderEngine({
      sources: [
        {
          name: "r",
          collect: (s) => {
            seen.push(s.round);
            return undefined;
          },
        },
      ],
    });
    await engine.collect(state());
    await engine.collect(state());
    expect(seen).toEqual([1, 2]);
  });

  it("accepts custom sources added later, async ones too, and rejects duplicate names", async () => {
    const engine = new ReminderEngine();
    engine.add({ name: "mine", collect: async (s) => `turn ${s.turn}, ${s.messages.length} messages` });
    expect(() => engine.add(fixed("mine", () => "x"))).toThrow(/already registered/);
    expect((await engine.collect(state())).map((r) => r.block.text)).toEqual([
      "<system-reminder>\nturn 1, 1 messages\n</system-reminder>",
    ]);
  });

  it("skips a throwing source and reports it", async () => {
    const errors: string[] = [];
    const engine = new ReminderEngine({
      sources: [
        fixed("bad", () => {
          throw new Error("boom");
        }),
        fixed("good", () => "ok"),
      ],
      onError: (name, error) => errors.push(`${name}: ${(error as Error).message}`),
    });
    expect((await engine.collect(state())).map((r) => r.source)).toEqual(["good"]);
    expect(errors).toEqual(["bad: boom"]);
  });

  it("rejects a remindEvery that is not a positive integer", () => {
    expect(() => new ReminderEngine({ remindEvery: 0 })).toThrow(RangeError);
  });
});

describe("a resumed transcript", () => {
  it("does not get a reminder it already carries; a changed text is sent", async () => {
    let text = "Project rules: run the tests.";
    const engine = new ReminderEngine({ sources: [{ name: "rules", collect: () => text }] });
    const history: Message[] = [
      {
        role: "user",
        content: [reminderBlock("Project rules: run the tests."), { type: "text", text: "hi" }],
      },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
      { role: "user", content: [{ type: "text", text: "again" }] },
    ];
    const state = { turn: 1, messages: history, now: new Date(0), firstUserMessage: false };
    expect(await engine.collect(state)).toEqual([]);
    text = "Project rules: run the tests, then lint.";
    expect((await engine.collect(state)).map((r) => r.text)).toEqual([text]);
  });
});
