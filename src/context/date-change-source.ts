import { localDate } from "./environment.js";
import type { ReminderSource } from "./reminder-engine.js";

/**
 * Tells the model when the calendar day changes mid-session: the system prompt keeps the start date
 * (it must stay byte-stable), so the new date arrives as a reminder instead, once per change.
 */
export function dateChangeSource(options: { start?: Date } = {}): ReminderSource {
  let known = options.start ? localDate(options.start) : undefined;
  return {
    name: "date-change",
    collect(state) {
      const today = localDate(state.now);
      if (known === undefined || known === today) {
        known = today;
        return undefined;
      }
      known = today;
      return `The date has changed. Today's date is now ${today}. Do not mention this to the user explicitly.`;
    },
  };
}
