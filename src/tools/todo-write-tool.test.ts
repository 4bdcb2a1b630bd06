import { describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { validateInput } from "../loop/validate-input.js";
import { getTodos } from "./todo-list.js";
import { createTodoWriteTool } from "./todo-write-tool.js";

const context = (state = new ToolState()): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t",
  state,
  agentPath: [],
});

describe("TodoWrite", () => {
  const tool = createTodoWriteTool();

  it("replaces the list in the tool state and says how it stands", async () => {
    const state = new ToolState();
    const out = await tool.run(
      {
        todos: [
          { content: "Write the test", status: "completed", activeForm: "Writing the test" },
          { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
          { content: "Run the suite", status: "pending", activeForm: "Running the suite" },
        ],
      },
      context(state),
    );
    expect(out).toBe(
      "The todo list was updated (3 tasks: 1 completed, 1 in progress, 1 pending). Keep it current: mark each task completed as soon as it is done, then go on with the next.",
    );
    expect(getTodos(state).map((t) => t.status)).toEqual(["completed", "in_progress", "pending"]);
    await tool.run({ todos: [] }, context(state));
    expect(getTodos(state)).toEqual([]);
  });

  it("nudges when no task or several are in progress, and notes when all are done", async () => {
    const todo = (status: "pending" | "in_progress" | "completed") => ({
      content: "a",
      status,
      activeForm: "b",
    });
    expect(await tool.run({ todos: [todo("pending")] }, context())).toMatch(/No task is in progress/);
    expect(await tool.run({ todos: [todo("in_progress"), todo("in_progress")] }, context())).toMatch(
      /exactly one task in_progress/,
    );
    expect(await tool.run({ todos: [todo("completed")] }, context())).toMatch(/All tasks are completed/);
    await expect(
      tool.run({ todos: [{ content: " ", status: "pending", activeForm: "x" }] }, context()),
    ).rejects.toThrow(/must not be blank/);
  });

  it("rejects a list that breaks the schema before it runs", () => {
    expect(validateInput(tool, { todos: [{ content: "a", status: "doing", activeForm: "b" }] })).toMatch(
      /status/,
    );
    expect(validateInput(tool, { todos: [{ content: "a", status: "pending" }] })).toMatch(/activeForm/);
    expect(tool.readOnly).toBe(true);
    expect(tool.summarize?.({ todos: [{ content: "a", status: "pending", activeForm: "b" }] })).toBe(
      "TodoWrite 1 task: 0 completed, 0 in progress, 1 pending",
    );
  });
});
