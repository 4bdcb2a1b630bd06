import { isReminderBlock } from "../context/index.js";
import type { Message, TextBlock } from "../messages/index.js";

const textOf = (message: Message) =>
  message.content
    .filter((b): b is TextBlock => b.type === "text" && !isReminderBlock(b))
    .map((b) => b.text)
    .join("\n")
    .trim();

/** The user's newest prompt among `messages` (a user message with text of its own and no tool results). */
export function latestPrompt(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role !== "user") continue;
    if (m.content.some((b) => b.type === "tool_result")) continue;
    const text = textOf(m);
    if (text) return text;
  }
  return undefined;
}
