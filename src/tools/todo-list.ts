/** One task of the model's plan. */
export interface TodoItem {
  /** What to do, in the imperative: "Run the tests". */
  content: string;
  status: "pending" | "in_progress" | "completed";
  /** The same task as it is being done: "Running the tests" (shown while it is in progress). */
  activeForm: string;
}

export const TODO_STATUSES: readonly TodoItem["status"][] = ["pending", "in_progress", "completed"];

/** The key of the current list in `ToolContext.state`: it lives as long as the session's tool state. */
export const TODO_LIST_KEY = "mitsu.tools.todoList";

/** The list the model last wrote ([] before its first TodoWrite). */
export function getTodos(state: Map<string, unknown>): readonly TodoItem[] {
  const list = state.get(TODO_LIST_KEY);
  return Array.isArray(list) ? (list as TodoItem[]) : [];
}

export function setTodos(state: Map<string, unknown>, todos: readonly TodoItem[]): void {
  state.set(
    TODO_LIST_KEY,
    todos.map((todo) => ({ ...todo })),
  );
}

/** `3 tasks: 1 completed, 1 in progress, 1 pending`. */
export function countTodos(todos: readonly TodoItem[]): string {
  const count = (status: TodoItem["status"]) => todos.filter((todo) => todo.status === status).length;
  const noun = todos.length === 1 ? "task" : "tasks";
  return `${todos.length} ${noun}: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending`;
}
