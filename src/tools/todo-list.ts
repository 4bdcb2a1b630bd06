import { type ToolState, toolStateKey } from "../loop/tool-state.js";

/** One task of the model's plan. */
export interface TodoItem {
  /** What to do, in the imperative: "Run the tests". */
  content: string;
  status: "pending" | "in_progress" | "completed";
  /** The same task as it is being done: "Running the tests" (shown while it is in progress). */
  activeForm: string;
}

export const TODO_STATUSES: readonly TodoItem["status"][] = ["pending", "in_progress", "completed"];

/** The slot of the current list in `ToolContext.state`: it lives as long as the conversation's tool state. */
export const TODO_LIST = toolStateKey<readonly TodoItem[]>("todo-list", () => []);

/** The list the model last wrote ([] before its first TodoWrite). */
export function getTodos(state: ToolState): readonly TodoItem[] {
  return state.peek(TODO_LIST) ?? [];
}

export function setTodos(state: ToolState, todos: readonly TodoItem[]): void {
  state.set(
    TODO_LIST,
    todos.map((todo) => ({ ...todo })),
  );
}

/** `3 tasks: 1 completed, 1 in progress, 1 pending`. */
export function countTodos(todos: readonly TodoItem[]): string {
  const count = (status: TodoItem["status"]) => todos.filter((todo) => todo.status === status).length;
  const noun = todos.length === 1 ? "task" : "tasks";
  return `${todos.length} ${noun}: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending`;
}
