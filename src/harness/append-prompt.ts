import type { ContentBlock, Message } from "../messages/index.js";

/**
 * Adds the prompt (text, or blocks: an attached image) as a new user message, also after a user message (a run
 * that was interrupted or failed ends with one): the API accepts consecutive user messages, and the history as
 * sent and as logged is never rewritten, so the session log stays a faithful, append-only copy and the prompt
 * cache still holds.
 */
export function appendPrompt(history: readonly Message[], prompt: string | ContentBlock[]): Message[] {
  const content: ContentBlock[] = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
  return [...history, { role: "user", content }];
}
