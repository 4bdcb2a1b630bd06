import type { ContentBlock, Message } from "../messages/index.js";

function isEmptyContent(content: string | ContentBlock[]): boolean {
  return content === "" || (Array.isArray(content) && content.length === 0);
}

/**
 * The rules every request's `messages` must meet (invariant 1), as the Anthropic API enforces them:
 * - roles are only `user` and `assistant`, and the first message is a user message;
 * - every message has content, except a final assistant message (a prefill);
 * - every `tool_use` is answered by exactly one `tool_result` in the NEXT message, which is a user message
 *   whose tool_results come before its other blocks;
 * - every `tool_result` answers a `tool_use` of the message just before it;
 * - no `tool_use` id appears twice in the transcript; an `is_error` tool_result has content.
 *
 * Returns the problems found, each naming the message index (`messages[3]`); empty means valid.
 * The order of tool_results within their message is free, as it is for the API.
 */
export function checkTranscript(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  if (messages.length === 0) return ["the transcript has no messages"];
  if (messages[0]?.role !== "user") problems.push("messages[0]: the first message must be a user message");

  const seenToolUse = new Map<string, number>();
  messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    const role: string = message.role;
    if (role !== "user" && role !== "assistant") {
      problems.push(`${at}: role must be "user" or "assistant", not ${JSON.stringify(role)}`);
    }
    if (!Array.isArray(message.content)) {
      problems.push(`${at}: content must be an array of blocks`);
      return;
    }
    const isFinalAssistant = i === messages.length - 1 && role === "assistant";
    if (message.content.length === 0 && !isFinalAssistant) problems.push(`${at}: content is empty`);

    for (const block of message.content) {
      if (block.type === "tool_use") {
        if (role !== "assistant")
          problems.push(`${at}: tool_use ${block.id} is in a message of role ${role}`);
        const first = seenToolUse.get(block.id);
        if (first !== undefined)
          problems.push(`${at}: duplicate tool_use id ${block.id} (first in messages[${first}])`);
        else seenToolUse.set(block.id, i);
      } else if (block.type === "tool_result") {
        if (role !== "user")
          problems.push(`${at}: tool_result ${block.tool_use_id} is in a message of role ${role}`);
        if (block.is_error === true && isEmptyContent(block.content)) {
          problems.push(`${at}: tool_result ${block.tool_use_id} has is_error but no content`);
        }
      }
    }
  });

  // Pairing: each assistant message's tool_use ids against the next message's tool_results, and each
  // user message's tool_results against the previous message's tool_use ids.
  messages.forEach((message, i) => {
    if (!Array.isArray(message.content)) return;
    const prev = i > 0 ? messages[i - 1] : undefined;
    const asked = new Set<string>();
    if (prev?.role === "assistant" && Array.isArray(prev.content)) {
      for (const block of prev.content) if (block.type === "tool_use") asked.add(block.id);
    }
    const answered = new Set<string>();
    let otherBlockSeen = false;
    for (const block of message.content) {
      if (block.type !== "tool_result") {
        otherBlockSeen = true;
        continue;
      }
      const id = block.tool_use_id;
      if (message.role === "user" && !asked.has(id)) {
        problems.push(
          `messages[${i}]: tool_result ${id} has no matching tool_use in the previous assistant message`,
        );
      } else if (answered.has(id)) {
        problems.push(`messages[${i}]: tool_use ${id} is answered more than once`);
      } else if (otherBlockSeen && asked.has(id)) {
        problems.push(`messages[${i}]: tool_result ${id} comes after a non-tool_result block`);
      }
      answered.add(id);
    }
    if (message.role !== "assistant") return;
    const next = messages[i + 1];
    const results = new Set<string>();
    if (next?.role === "user" && Array.isArray(next.content)) {
      for (const block of next.content) if (block.type === "tool_result") results.add(block.tool_use_id);
    }
    for (const block of message.content) {
      if (block.type !== "tool_use" || results.has(block.id)) continue;
      problems.push(
        next === undefined
          ? `messages[${i}]: tool_use ${block.id} is not answered (the transcript ends after it)`
          : `messages[${i}]: tool_use ${block.id} has no tool_result in messages[${i + 1}]`,
      );
    }
  });
  return problems;
}
