import { describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { resumedRecap } from "../../src/cli/tui/resumed-recap.js";
import type { Message } from "../../src/messages/index.js";

const style = createStyle(false);
const user = (...texts: string[]): Message => ({
  role: "user",
  content: texts.map((text) => ({ type: "text", text })),
});
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const toolTurn: Message[] = [
  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "a" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
];

describe("the recap of a resumed conversation", () => {
  it("shows the last prompts (without mitsu's reminders) and the model's last words after each", () => {
    const history: Message[] = [
      user("<system-reminder>context</system-reminder>", "first"),
      assistant("One."),
      user("second"),
      ...toolTurn,
      assistant("Two."),
      user("third"),
      assistant("Three."),
      user("fourth"),
      assistant("Four."),
    ];
    expect(resumedRecap(history, style)).toBe(
      [
        "… 1 earlier prompts",
        "> second",
        "Two.",
        "> third",
        "Three.",
        "> fourth",
        "Four.",
        "─── resumed ───",
        "",
      ].join("\n"),
    );
  });

  it("is empty for a new conversation and cuts long answers", () => {
    expect(resumedRecap([], style)).toBe("");
    const long = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const out = resumedRecap([user("q"), assistant(long)], style, 3, 2);
    expect(out).toBe(["> q", "line 0", "line 1", "… (+18 lines)", "─── resumed ───", ""].join("\n"));
  });
});
