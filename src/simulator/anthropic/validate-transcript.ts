type Block = Record<string, unknown> & { type?: unknown };

/**
 * Checks `messages` as the real API does and returns the first error message, or undefined. Messages
 * are modelled on the API's own wording, so a client's error handling meets the text it will see in
 * production. `messages` is known to be a non-empty array.
 */
export function validateTranscript(messages: unknown[]): string | undefined {
  const toolUseIds = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const error = checkMessage(messages, i, message, toolUseIds);
    if (error) return error;
  }
  return undefined;
}

/** A message's content as blocks (a string is one text block); undefined when the shape is wrong. */
export function contentBlocks(content: unknown): Block[] | undefined {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (Array.isArray(content)) return content as Block[];
  return undefined;
}

function checkMessage(
  messages: unknown[],
  i: number,
  message: unknown,
  toolUseIds: Set<string>,
): string | undefined {
  if (!message || typeof message !== "object" || Array.isArray(message)) {
    return `messages.${i}: Input should be a valid dictionary`;
  }
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role === "system") {
    return 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.';
  }
  if (role !== "user" && role !== "assistant")
    return `messages.${i}.role: Input should be 'user' or 'assistant'`;
  if (i === 0 && role !== "user") return 'messages: first message must use the "user" role';
  if (content === undefined) return `messages.${i}.content: Field required`;
  const blocks = contentBlocks(content);
  if (!blocks) return `messages.${i}.content: Input should be a valid string or a valid list`;
  const last = i === messages.length - 1;
  if (blocks.length === 0 && !(last && role === "assistant")) {
    return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
  }
  for (const [j, block] of blocks.entries()) {
    const error = checkBlock(block, `messages.${i}.content.${j}`, role);
    if (error) return error;
  }
  if (last && role === "assistant") {
    const tail = blocks.at(-1);
    if (tail?.type === "text" && typeof tail.text === "string" && /\s$/.test(tail.text)) {
      return "messages: final assistant content cannot end with trailing whitespace";
    }
  }
  return role === "assistant"
    ? checkToolUses(messages, i, blocks, toolUseIds)
    : checkToolResults(messages, i, blocks);
}

function checkBlock(block: Block, at: string, role: "user" | "assistant"): string | undefined {
  if (!block || typeof block !== "object" || Array.isArray(block))
    return `${at}: Input should be a valid dictionary`;
  if (typeof block.type !== "string") return `${at}.type: Field required`;
  switch (block.type) {
    case "text":
      if (typeof block.text !== "string") return `${at}.text: Input should be a valid string`;
      if (block.text === "") return `${at}.text: text content blocks must be non-empty`;
      return undefined;
    case "tool_use":
      if (role !== "assistant") return `${at}: \`tool_use\` blocks can only be in \`assistant\` messages`;
      if (typeof block.id !== "string" || block.id === "") return `${at}.id: Field required`;
      if (typeof block.name !== "string") return `${at}.name: Field required`;
      if (!block.input || typeof block.input !== "object" || Array.isArray(block.input)) {
        return `${at}.input: Input should be a valid dictionary`;
      }
      return undefined;
    case "tool_result":
      if (role !== "user") return `${at}: \`tool_result\` blocks can only be in \`user\` messages`;
      if (typeof block.tool_use_id !== "string") return `${at}.tool_use_id: Field required`;
      return checkToolResultContent(block.content, `${at}.content`);
    default:
      return undefined;
  }
}

function checkToolResultContent(content: unknown, at: string): string | undefined {
  if (content === undefined || typeof content === "string") return undefined;
  if (!Array.isArray(content)) return `${at}: Input should be a valid string or a valid list`;
  for (const [k, inner] of (content as Block[]).entries()) {
    if (inner?.type === "text" && inner.text === "")
      return `${at}.${k}.text: text content blocks must be non-empty`;
  }
  return undefined;
}

function checkToolUses(
  messages: unknown[],
  i: number,
  blocks: Block[],
  toolUseIds: Set<string>,
): string | undefined {
  const ids: string[] = [];
  for (const [j, block] of blocks.entries()) {
    if (block.type !== "tool_use") continue;
    const id = block.id as string;
    if (toolUseIds.has(id)) return `messages.${i}.content.${j}: \`tool_use\` ids must be unique`;
    toolUseIds.add(id);
    ids.push(id);
  }
  if (ids.length === 0) return undefined;
  const answered = new Set(toolResultIds(messages[i + 1]));
  const missing = ids.filter((id) => !answered.has(id));
  if (missing.length === 0) return undefined;
  return (
    `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. ` +
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
  );
}

function checkToolResults(messages: unknown[], i: number, blocks: Block[]): string | undefined {
  const previous = messages[i - 1] as { role?: unknown; content?: unknown } | undefined;
  const offered = new Set<string>();
  if (previous?.role === "assistant") {
    for (const block of contentBlocks(previous.content) ?? []) {
      if (block?.type === "tool_use" && typeof block.id === "string") offered.add(block.id);
    }
  }
  const seen = new Set<string>();
  let otherSeen = false;
  for (const [j, block] of blocks.entries()) {
    if (block.type !== "tool_result") {
      otherSeen = true;
      continue;
    }
    const id = block.tool_use_id as string;
    if (!offered.has(id)) {
      return (
        `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
      );
    }
    if (seen.has(id)) {
      return `messages.${i}.content.${j}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`;
    }
    seen.add(id);
    if (otherSeen) {
      return `messages.${i}.content.${j}: \`tool_result\` blocks must come first in the message content, before any other blocks`;
    }
  }
  return undefined;
}

function toolResultIds(message: unknown): string[] {
  const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
  if (role !== "user") return [];
  const ids: string[] = [];
  for (const block of contentBlocks(content) ?? []) {
    if (block?.type === "tool_result" && typeof block.tool_use_id === "string") ids.push(block.tool_use_id);
  }
  return ids;
}
