import type { ReminderSource } from "./reminder-engine.js";

/**
 * The list of skills as a reminder. `list` returns the text (the skills module renders it), or
 * undefined when there are no skills. It is asked every turn; the engine sends it on the first turn,
 * at once when it changes, and otherwise every `remindEvery` rounds.
 */
export function skillsSource(
  list: () => string | undefined | Promise<string | undefined>,
  name = "skills",
): ReminderSource {
  return { name, collect: () => list() };
}
