type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fields each known block type must have, and their JSON types. */
const BLOCK_FIELDS: Record<string, Record<string, "string" | "object" | "content">> = {
  text: { text: "string" },
  thinking: { thinking: "string" },
  redacted_thinking: { data: "string" },
  image: { source: "object" },
  tool_use: { id: "string", name: "string", input: "object" },
  tool_result: { tool_use_id: "string", content: "content" },
  unknown: { provider: "string", data: "object" },
};

/** Why `block` is not a content block (`at` names it), or undefined when it is one. */
function blockProblem(block: unknown, at: string, refAllowed = false): string | undefined {
  if (!isObject(block)) return `${at} is not an object`;
  if (typeof block.type !== "string") return `${at} has no "type"`;
  const fields = BLOCK_FIELDS[block.type];
  if (!fields) return `${at} has the unknown type "${block.type}"`;
  // A format-3 reference to a result logged on its own line (`LoggedResultRef`); the loader resolves it.
  if (refAllowed && block.type === "tool_result" && block.logged === true && block.content === undefined)
    return typeof block.tool_use_id === "string"
      ? undefined
      : `${at} (tool_result) has no string "tool_use_id"`;
  for (const [name, kind] of Object.entries(fields)) {
    const value = block[name];
    if (kind === "string" && typeof value !== "string")
      return `${at} (${block.type}) has no string "${name}"`;
    if (kind === "object" && !isObject(value)) return `${at} (${block.type}) has no object "${name}"`;
    if (kind === "content") {
      if (typeof value === "string") continue;
      if (!Array.isArray(value)) return `${at} (${block.type}) has no "${name}" string or array`;
      for (let i = 0; i < value.length; i++) {
        const problem = blockProblem(value[i], `${at}.${name}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

/**
 * Why `line` (the first of the file when `first`) is not a session line, or undefined when it is one: a header
 * with its fields, or a message whose role and content blocks have the shape the loop and the providers rely on.
 * The answer completes a sentence about the line ("line 4 is a message whose content[0] has no …").
 */
export function sessionLineProblem(line: unknown, first: boolean): string | undefined {
  if (!isObject(line)) return "is not a JSON object";
  if (first) {
    if (line.type !== "session") return 'is not a session header ({"type": "session", …})';
    for (const field of ["id", "cwd", "model", "createdAt"] as const) {
      if (typeof line[field] !== "string") return `is a session header without a string "${field}"`;
    }
    if (typeof line.version !== "number") return 'is a session header without a numeric "version"';
    if (line.system !== undefined) {
      if (!Array.isArray(line.system)) return 'is a session header whose "system" is not an array';
      for (let i = 0; i < line.system.length; i++) {
        const problem = blockProblem(line.system[i], `system[${i}]`);
        if (problem) return `is a session header whose ${problem}`;
      }
    }
    return undefined;
  }
  switch (line.type) {
    case "message": {
      if (!isObject(line.message)) return 'is a message line without a "message" object';
      const problem = messageProblem(line.message, "a message", true);
      return problem ? `is ${problem}` : undefined;
    }
    case "tool-start":
      if (typeof line.toolUseId !== "string" || typeof line.name !== "string")
        return 'is a tool-start line without a string "toolUseId" and "name"';
      return undefined;
    case "tool-result": {
      if (!isObject(line.result) || line.result.type !== "tool_result")
        return 'is a tool-result line without a tool_result "result"';
      const problem = blockProblem(line.result, "result");
      return problem ? `is a tool-result line whose ${problem}` : undefined;
    }
    case "compaction": {
      if (typeof line.reason !== "string" || typeof line.before !== "number")
        return 'is a compaction line without a string "reason" and a numeric "before"';
      if (!Array.isArray(line.messages)) return 'is a compaction line whose "messages" is not an array';
      for (let i = 0; i < line.messages.length; i++) {
        const problem = messageProblem(line.messages[i], "a message", false);
        if (problem) return `is a compaction line whose messages[${i}] is ${problem}`;
      }
      return undefined;
    }
    case "subagent":
      if (typeof line.toolUseId !== "string" || typeof line.path !== "string")
        return 'is a subagent line without a string "toolUseId" and "path"';
      // A file from elsewhere must not point a resume at any file on the disk: a name beside this one only.
      if (!/^[\w.-]+\.jsonl$/.test(line.path) || line.path.startsWith("."))
        return 'is a subagent line whose "path" is not a session file name beside this one';
      return undefined;
    case "rewind":
      if (typeof line.keep !== "number" || !Number.isInteger(line.keep) || line.keep < 0)
        return 'is a rewind line without a non-negative integer "keep"';
      return undefined;
    default:
      return typeof line.type === "string" ? `has the unknown type "${line.type}"` : 'has no "type"';
  }
}

/** Why `message` is not a message of the transcript, as "<what> whose …", or undefined when it is one. */
/** `refs`: a message line, whose user content may refer to a logged result (`LoggedResultRef`, format 3). */
function messageProblem(message: unknown, what: string, refs: boolean): string | undefined {
  if (!isObject(message)) return `${what} that is not an object`;
  if (message.role !== "user" && message.role !== "assistant") {
    return `${what} whose "role" is neither "user" nor "assistant"`;
  }
  if (!Array.isArray(message.content)) return `${what} whose "content" is not an array`;
  for (let i = 0; i < message.content.length; i++) {
    const refAllowed = refs && message.role === "user";
    const problem = blockProblem(message.content[i], `content[${i}]`, refAllowed);
    if (problem) return `${what} whose ${problem}`;
  }
  return undefined;
}
