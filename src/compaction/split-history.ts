import type { Message } from "../messages/index.js";
import { estimateMessageTokens } from "./estimate-tokens.js";

/** A transcript split into the part a summary replaces and the recent part kept verbatim. */
export interface HistorySplit {
  /** The older messages, replaced by the summary. Never empty. */
  removed: Message[];
  /** The newest messages, kept as they are; it starts with an assistant message or a user prompt (no tool results). */
  kept: Message[];
}

const hasToolResult = (m: Message) => m.role === "user" && m.content.some((b) => b.type === "tool_result");

/**
 * Where to cut a transcript for compaction: the kept tail is the longest one under `keepTokens` (estimated)
 * (images by their own rule) that starts at a valid point. A valid point is an assistant message or a user message without tool
 * results, so a tool_use and its tool_result stay together or go together. Returns undefined when nothing
 * can be removed (a transcript of one message).
 */
export function splitHistory(
  messages: readonly Message[],
  keepTokens: number,
  api?: string,
): HistorySplit | undefined {
  if (messages.length < 2) return undefined;
  let cut = messages.length;
  let size = 0;
  for (let i = messages.length - 1; i >= 1; i--) {
    size += estimateMessageTokens(messages[i] as Message, api);
    if (size > keepTokens) break;
    if (!hasToolResult(messages[i] as Message)) cut = i;
  }
  return { removed: messages.slice(0, cut), kept: messages.slice(cut) };
}
