import type { ToolUseBlock } from "../../messages/index.js";
import type { TodoItem } from "../../tools/todo-list.js";
import { fitWidth } from "./status-line.js";
import type { Style } from "./style.js";
import { showControls } from "./terminal-text.js";

/** The list a successful TodoWrite call set (its input, which the loop validated before the call ran). */
export function todosOf(block: ToolUseBlock): TodoItem[] | undefined {
  const todos = block.input.todos;
  return block.name === "TodoWrite" && Array.isArray(todos) ? (todos as TodoItem[]) : undefined;
}

/**
 * The task list as a checklist under its call, one line per task: `☒` done (dimmed), `◼` the task in progress
 * (bold, as its activeForm says it), `☐` still to do. Lines end with a newline; the first is indented under the
 * call's `●` line as results are. With `width` (a terminal's columns) each line is cut to fit.
 */
export function renderChecklist(todos: readonly TodoItem[], style: Style, width?: number): string {
  if (todos.length === 0) return `  ⎿ ${style.dim("(the task list is empty)")}\n`;
  const lines = todos.map((todo) => {
    const full = oneLine(todo.status === "in_progress" ? todo.activeForm || todo.content : todo.content);
    // Redrawn in place, a line must never wrap: 6 cells go to the indent and the box.
    const text = width === undefined ? full : fitWidth(full, Math.max(10, width - 7));
    if (todo.status === "completed") return `${style.green("☒")} ${style.dim(text)}`;
    if (todo.status === "in_progress") return `${style.cyan("◼")} ${style.bold(text)}`;
    return `☐ ${text}`;
  });
  return `${lines.map((line, i) => `${i === 0 ? "  ⎿ " : "    "}${line}`).join("\n")}\n`;
}

/** One line of a task, its control characters shown as escapes: the model wrote it, the terminal must not obey it. */
function oneLine(text: string): string {
  const flat = showControls(text.replace(/\s+/g, " ").trim());
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
