import type { Message } from "../messages/index.js";
import type { ReminderSource } from "./reminder-engine.js";

export interface ToolNudgeOptions {
  /** The tool whose disuse triggers the nudge, e.g. `TodoWrite` or `Task`. */
  toolName: string;
  /** Speak once this many assistant turns in a row did not call the tool. */
  afterTurns: number;
  /** The reminder text; a default names the tool. */
  text?: string;
  /** Source name; default `nudge:<toolName>`. */
  name?: string;
}

/** Assistant messages since the last one that called `toolName` (all of them if it was never called). */
export function turnsWithoutTool(messages: readonly Message[], toolName: string): number {
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    if (message.content.some((b) => b.type === "tool_use" && b.name === toolName)) break;
    count++;
  }
  return count;
}

/**
 * "The X tool has not been used for a while". Computed from the transcript alone, so it needs no
 * hook into the tools; the engine's rate limit keeps the unchanged text from repeating every turn.
 */
export function toolNudgeSource(options: ToolNudgeOptions): ReminderSource {
  const text =
    options.text ??
    `The ${options.toolName} tool has not been used for a while. If it would help with the current work, consider using it; if not, ignore this reminder and never mention it to the user.`;
  return {
    name: options.name ?? `nudge:${options.toolName}`,
    collect: (state) =>
      turnsWithoutTool(state.messages, options.toolName) >= options.afterTurns ? text : undefined,
  };
}
