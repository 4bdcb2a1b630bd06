import type { Message, ToolUseBlock } from "../messages/index.js";
import type { ReminderSource } from "./reminder-engine.js";
import { turnsWithoutTool } from "./tool-nudge-source.js";

export interface TodoReminderOptions {
  /** The task-list tool (default `TodoWrite`). */
  toolName?: string;
  /** Speak once this many assistant turns in a row did not update the list. Default 10. */
  afterTurns?: number;
}

interface Todo {
  content: string;
  status: string;
}

/** The list of the newest task-list call that succeeded, or undefined when the transcript has none. */
export function latestTodos(messages: readonly Message[], toolName = "TodoWrite"): Todo[] | undefined {
  const failed = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") {
      for (const block of message.content) {
        if (block.type === "tool_result" && block.is_error) failed.add(block.tool_use_id);
      }
      continue;
    }
    const calls = message.content.filter(
      (block): block is ToolUseBlock =>
        block.type === "tool_use" && block.name === toolName && !failed.has(block.id),
    );
    for (const call of calls.reverse()) {
      const todos = call.input.todos;
      if (call.input_status === undefined && Array.isArray(todos)) {
        return todos.filter(
          (todo): todo is Todo =>
            typeof todo === "object" &&
            todo !== null &&
            typeof (todo as Todo).content === "string" &&
            typeof (todo as Todo).status === "string",
        );
      }
    }
  }
  return undefined;
}

/**
 * The spec's "the task tool has not been used recently" reminder (section 7.3 ⑦), for a list that exists: when
 * the model wrote a task list with work still open and then went `afterTurns` assistant turns without updating
 * it, a reminder carries the list as it stands. Computed from the transcript alone (a resumed session behaves
 * the same); like every reminder it only ever joins the newest user message, so the history already sent — and
 * the cache prefix — stay as they were. The engine's rate limit keeps an unchanged reminder from repeating
 * every turn.
 */
export function todoReminderSource(options: TodoReminderOptions = {}): ReminderSource {
  const toolName = options.toolName ?? "TodoWrite";
  const afterTurns = options.afterTurns ?? 10;
  return {
    name: `todo:${toolName}`,
    collect: (state) => {
      const todos = latestTodos(state.messages, toolName);
      if (!todos || todos.every((todo) => todo.status === "completed")) return undefined;
      if (turnsWithoutTool(state.messages, toolName) < afterTurns) return undefined;
      const list = todos.map((todo, i) => `${i + 1}. [${todo.status}] ${todo.content}`).join("\n");
      return [
        `The ${toolName} tool has not been used recently. If you are still working on the tasks below, update the list: mark what is done completed and the task you work on in_progress; remove tasks that no longer apply. If the list is no longer relevant, ignore this reminder. Never mention this reminder to the user.`,
        "",
        "Your current task list:",
        list,
      ].join("\n");
    },
  };
}
