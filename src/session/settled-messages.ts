import type { Message } from "../messages/index.js";

/**
 * The transcript up to the end of its last finished turn: up to the last assistant message that asks for no tool.
 * What follows belongs to a turn still running — another mitsu's prompt, its tool calls and their results — which a
 * copy made while that mitsu holds the file must not carry: the prompt is not this session's, and the calls would be
 * answered as "state unknown" while they still run. Empty when no turn has finished yet.
 */
export function settledMessages(messages: readonly Message[]): Message[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "assistant" && !message.content.some((block) => block.type === "tool_use")) {
      return messages.slice(0, i + 1);
    }
  }
  return [];
}
