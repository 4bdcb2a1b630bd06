import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import { countTodos, setTodos, TODO_STATUSES, type TodoItem } from "./todo-list.js";

export interface TodoWriteInput {
  todos: TodoItem[];
}

/** The most tasks one list may hold: a plan, not a backlog. */
const MAX_TODOS = 100;

const DESCRIPTION = `Creates and updates your task list for the current session: your plan for multi-step work, shown to the user as a checklist. It helps you stay on track and shows the user how far you are.

When to use it:
- A task with three or more distinct steps, or one that needs careful planning.
- The user gives several tasks at once (a numbered or comma-separated list).
- New requirements arrive in the middle of the work: add them.
Skip it for a single, simple task or a purely conversational answer: a list of one item helps nobody.

How to use it:
- Each call replaces the whole list: send every task, each with content (imperative: "Run the tests"), activeForm (present continuous: "Running the tests") and status.
- Mark a task in_progress before you start it, and keep exactly one task in_progress while you work.
- Mark a task completed as soon as it is done — not in batches later. Only mark it completed when it is fully done: tests pass, nothing is left unfinished. If you are blocked, keep it in_progress and add a task for what must be resolved.
- Remove tasks that no longer matter rather than leaving them pending.`;

/**
 * `TodoWrite`: the model's plan as a checklist. The list lives in `ToolContext.state` (see `getTodos`), so it
 * lasts as long as the session's tool state; the terminal draws it from the call's input, and the context's
 * reminder reads it from the transcript, so nothing else needs a hook into the tool.
 */
export function createTodoWriteTool(): Tool<TodoWriteInput> {
  return {
    name: "TodoWrite",
    description: DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: {
        todos: {
          type: "array",
          description: "The whole updated task list",
          maxItems: MAX_TODOS,
          items: {
            type: "object",
            properties: {
              content: { type: "string", minLength: 1, description: 'The task, imperative: "Run the tests"' },
              status: { type: "string", enum: [...TODO_STATUSES] },
              activeForm: {
                type: "string",
                minLength: 1,
                description: 'The task while it is being done: "Running the tests"',
              },
            },
            required: ["content", "status", "activeForm"],
            additionalProperties: false,
          },
        },
      },
      required: ["todos"],
      additionalProperties: false,
    },
    // It changes nothing outside the conversation: planning is welcome in plan mode too.
    readOnly: true,
    summarize: (input) => `TodoWrite ${countTodos(input.todos)}`,
    async run(input, context) {
      const todos = input.todos.map((todo) => ({
        content: todo.content.trim(),
        status: todo.status,
        activeForm: todo.activeForm.trim(),
      }));
      const blank = todos.findIndex((todo) => todo.content === "" || todo.activeForm === "");
      if (blank !== -1) throw new ToolError(`todos[${blank}]: content and activeForm must not be blank.`);
      setTodos(context.state, todos);
      if (todos.length === 0) return "The todo list is now empty.";
      const active = todos.filter((todo) => todo.status === "in_progress").length;
      const notes = [`The todo list was updated (${countTodos(todos)}).`];
      if (todos.every((todo) => todo.status === "completed")) notes.push("All tasks are completed.");
      else if (active === 0)
        notes.push("No task is in progress: mark the one you work on next in_progress before you start it.");
      else if (active > 1)
        notes.push("Keep exactly one task in_progress: finish one before you start another.");
      else
        notes.push(
          "Keep it current: mark each task completed as soon as it is done, then go on with the next.",
        );
      return notes.join(" ");
    },
  };
}
