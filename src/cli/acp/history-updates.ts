import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message, ToolResultBlock } from "../../messages/index.js";
import type { EventUpdates } from "./event-updates.js";

/**
 * A conversation's history as the updates that would have shown it (`session/load`): the user's text, the
 * answers and the thinking, each tool call with its result, the plan as TodoWrite left it. Reminders mitsu added
 * to a user message (`<system-reminder>`) and messages that only carry tool results are not the user's words.
 */
export function historyUpdates(messages: readonly Message[], updates: EventUpdates): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const block of message.content)
      if (block.type === "tool_result") results.set(block.tool_use_id, block);
  }
  const none: string[] = [];
  for (const message of messages) {
    const content =
      typeof message.content === "string"
        ? [{ type: "text" as const, text: message.content }]
        : message.content;
    for (const block of content) {
      if (message.role === "user") {
        if (block.type === "text" && !block.text.startsWith("<system-reminder>")) {
          out.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: block.text } });
        } else if (block.type === "image" && block.source.type === "base64") {
          out.push({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", mimeType: block.source.media_type, data: block.source.data },
          });
        }
        continue;
      }
      if (block.type === "text" && block.text !== "") {
        out.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
      } else if (block.type === "thinking" && block.thinking !== "") {
        out.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.thinking } });
      } else if (block.type === "tool_use") {
        out.push(...updates.updates({ type: "tool-call-start", block, turn: 0, agentPath: none }));
        const result = results.get(block.id);
        if (result) {
          out.push(
            ...updates.updates({
              type: "tool-call-end",
              block,
              result,
              durationMs: 0,
              turn: 0,
              agentPath: none,
            }),
          );
        }
      }
    }
  }
  return out;
}
