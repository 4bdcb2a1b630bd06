import type {
  AssistantMessage,
  ContentBlock,
  Message,
  ToolUseBlock,
  UserMessage,
} from "../../messages/index.js";
import { splitToolResult, toolArguments } from "../encode/tool-result-content.js";

/**
 * The history as plain text for a model without function calling: each `tool_use` becomes the tag the model
 * wrote (`<tool_call name="…">{input}</tool_call>`, the exact text when it did not parse), joined into the
 * surrounding assistant text; each `tool_result` becomes `<tool_result id="…" name="…">…</tool_result>` text in
 * the user message (`is_error="true"` when it failed), its images kept as image blocks after it.
 * Other blocks are left as they are, for the inner provider to encode.
 */
export function renderHistory(messages: readonly Message[]): Message[] {
  const calls = new Map<string, ToolUseBlock>();
  return messages.map((m) => (m.role === "assistant" ? renderAssistant(m, calls) : renderUser(m, calls)));
}

export function renderToolCall(block: ToolUseBlock): string {
  return `<tool_call name="${escapeAttribute(block.name)}">${toolArguments(block)}</tool_call>`;
}

function renderAssistant(message: AssistantMessage, calls: Map<string, ToolUseBlock>): AssistantMessage {
  const content: ContentBlock[] = [];
  let text: string[] | undefined;
  const flush = () => {
    if (text) content.push({ type: "text", text: text.join("\n") });
    text = undefined;
  };
  for (const block of message.content) {
    if (block.type === "tool_use") {
      calls.set(block.id, block);
      text ??= [];
      text.push(renderToolCall(block));
    } else if (block.type === "text") {
      text ??= [];
      text.push(block.text);
    } else {
      flush();
      content.push(block);
    }
  }
  flush();
  return { ...message, content };
}

function renderUser(message: UserMessage, calls: Map<string, ToolUseBlock>): UserMessage {
  if (!message.content.some((b) => b.type === "tool_result")) return message;
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type !== "tool_result") {
      content.push(block);
      continue;
    }
    const { text, images } = splitToolResult(block);
    const name = calls.get(block.tool_use_id)?.name;
    const attributes = [`id="${escapeAttribute(block.tool_use_id)}"`];
    if (name !== undefined) attributes.push(`name="${escapeAttribute(name)}"`);
    if (block.is_error) attributes.push('is_error="true"');
    content.push({ type: "text", text: `<tool_result ${attributes.join(" ")}>\n${text}\n</tool_result>` });
    content.push(...images);
  }
  return { ...message, content };
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}
