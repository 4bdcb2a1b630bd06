import { todoReminderSource } from "../../context/index.js";
import type { Capability } from "../capability.js";

/** The todo list: TodoWrite is a built-in tool; the reminder nudges the model to keep its list current. */
export function todoCapability(): Capability {
  return { name: "todo", reminders: [todoReminderSource()] };
}
