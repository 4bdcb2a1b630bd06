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
function blockProblem(block: unknown, at: string): string | undefined {
  if (!isObject(block)) return `${at} is not an object`;
  if (typeof block.type !== "string") return `${at} has no "type"`;
  const fields = BLOCK_FIELDS[block.type];
  if (!fields) return `${at} has the unknown type "${block.type}"`;
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
  if (line.type !== "message") {
    return typeof line.type === "string" ? `has the unknown type "${line.type}"` : 'has no "type"';
  }
  const message = line.message;
  if (!isObject(message)) return 'is a message line without a "message" object';
  if (message.role !== "user" && message.role !== "assistant") {
    return 'is a message whose "role" is neither "user" nor "assistant"';
  }
  if (!Array.isArray(message.content)) return 'is a message whose "content" is not an array';
  for (let i = 0; i < message.content.length; i++) {
    const problem = blockProblem(message.content[i], `content[${i}]`);
    if (problem) return `is a message whose ${problem}`;
  }
  return undefined;
}
