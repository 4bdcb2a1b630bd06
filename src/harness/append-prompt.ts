import type { Message, TextBlock } from "../messages/index.js";

/**
 * Adds the prompt as a new user message, also after a user message (a run that was interrupted or failed
 * ends with one): the API accepts consecutive user messages, and the history as sent and as logged is never
 * rewritten, so the session log stays a faithful, append-only copy and the prompt cache still holds.
 */
export function appendPrompt(history: readonly Message[], prompt: string): Message[] {
  const text: TextBlock = { type: "text", text: prompt };
  return [...history, { role: "user", content: [text] }];
}
