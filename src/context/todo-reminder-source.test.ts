import { describe, expect, it } from "vitest";
import type { Message } from "../messages/index.js";
import { latestTodos, todoReminderSource } from "./todo-reminder-source.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const todoCall = (id: string, statuses: string[]): Message => ({
  role: "assistant",
  content: [
    {
      type: "tool_use",
      id,
      name: "TodoWrite",
      input: {
        todos: statuses.map((status, i) => ({ content: `T${i + 1}`, status, activeForm: `t${i + 1}` })),
      },
    },
  ],
});
const result = (id: string, is_error = false): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "ok", ...(is_error ? { is_error } : {}) }],
});
const other = (): Message => ({ role: "assistant", content: [{ type: "text", text: "working" }] });

const collect = (messages: Message[], afterTurns = 2) =>
  todoReminderSource({ afterTurns }).collect({
    turn: 1,
    round: 1,
    messages,
    now: new Date(),
    firstUserMessage: false,
  });

describe("the task list reminder", () => {
  it("stays silent without a list, and while the list is fresh", async () => {
    expect(await collect([user("hi"), other(), user("go"), other(), user("go")])).toBeUndefined();
    expect(
      await collect([user("hi"), todoCall("a", ["in_progress"]), result("a"), other(), user("go")]),
    ).toBeUndefined();
  });

  it("speaks with the current list once it has not been updated for a while", async () => {
    const messages = [
      user("hi"),
      todoCall("a", ["completed", "in_progress"]),
      result("a"),
      other(),
      user("go"),
      other(),
      user("go"),
    ];
    const text = await collect(messages);
    expect(text).toContain("The TodoWrite tool has not been used recently");
    expect(text).toContain("1. [completed] T1\n2. [in_progress] T2");
  });

  it("ignores a failed update and a finished list", async () => {
    const failed = [user("hi"), todoCall("a", ["pending"]), result("a", true), other(), other(), user("go")];
    expect(latestTodos(failed)).toBeUndefined();
    const done = [user("hi"), todoCall("a", ["completed"]), result("a"), other(), other(), user("go")];
    expect(await collect(done)).toBeUndefined();
  });
});
