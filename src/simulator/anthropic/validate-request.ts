import { contentBlocks, validateTranscript } from "./validate-transcript.js";

/** The most cache_control breakpoints one request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Validates a Messages API body as the real API does; returns the 400 invalid_request_error message of the
 * first problem, or undefined when the request is valid.
 */
export function validateRequest(body: unknown): string | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "Request body must be a JSON object";
  const b = body as Record<string, unknown>;
  const model = checkModel(b.model);
  if (model) return model;
  if (b.max_tokens === undefined) return "max_tokens: Field required";
  if (typeof b.max_tokens !== "number" || !Number.isInteger(b.max_tokens)) {
    return "max_tokens: Input should be a valid integer";
  }
  if (b.max_tokens < 1) return "max_tokens: Input should be greater than or equal to 1";
  return validatePrompt(b);
}

/** The checks shared with count_tokens (which has no max_tokens): model, messages, system, tools, cache_control. */
export function validatePrompt(body: unknown): string | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "Request body must be a JSON object";
  const b = body as Record<string, unknown>;
  const model = checkModel(b.model);
  if (model) return model;
  if (b.stream !== undefined && typeof b.stream !== "boolean")
    return "stream: Input should be a valid boolean";
  if (b.messages === undefined) return "messages: Field required";
  if (!Array.isArray(b.messages)) return "messages: Input should be a valid list";
  if (b.messages.length === 0) return "messages: at least one message is required";
  return (
    checkSystem(b.system) ??
    checkTools(b.tools) ??
    validateTranscript(b.messages) ??
    checkCacheControl(b.tools, b.system, b.messages)
  );
}

function checkModel(model: unknown): string | undefined {
  if (model === undefined) return "model: Field required";
  if (typeof model !== "string" || model === "") return "model: Input should be a valid string";
  return undefined;
}

function checkSystem(system: unknown): string | undefined {
  if (system === undefined || typeof system === "string") return undefined;
  if (!Array.isArray(system)) return "system: Input should be a valid string or a valid list";
  for (const [i, block] of system.entries()) {
    const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
    if (type !== "text") return `system.${i}.type: Input should be 'text'`;
    if (typeof text !== "string") return `system.${i}.text: Input should be a valid string`;
    if (text === "") return `system.${i}.text: text content blocks must be non-empty`;
  }
  return undefined;
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "tools: Input should be a valid list";
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    if (!tool || typeof tool !== "object") return `tools.${i}: Input should be a valid dictionary`;
    const { name, type, input_schema } = tool as { name?: unknown; type?: unknown; input_schema?: unknown };
    // Server tools (web_search_…, bash_…) have a versioned `type` and no input_schema.
    const custom = type === undefined || type === "custom";
    if (typeof name !== "string") return `tools.${i}.custom.name: Field required`;
    if (!TOOL_NAME.test(name))
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (custom && (!input_schema || typeof input_schema !== "object")) {
      return `tools.${i}.custom.input_schema: Field required`;
    }
    if (typeof type === "string" && type.startsWith("web_search_")) {
      const search = checkWebSearchTool(tool as Record<string, unknown>, i);
      if (search) return search;
    }
    if (names.has(name)) return "tools: Tool names must be unique.";
    names.add(name);
  }
  return undefined;
}

/** The web search server tool: named `web_search`, a positive `max_uses`, one domain list at most. */
function checkWebSearchTool(tool: Record<string, unknown>, i: number): string | undefined {
  const at = `tools.${i}.${String(tool.type)}`;
  if (tool.name !== "web_search") return `${at}.name: Input should be 'web_search'`;
  const max = tool.max_uses;
  if (max !== undefined && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) {
    return `${at}.max_uses: Input should be greater than or equal to 1`;
  }
  for (const key of ["allowed_domains", "blocked_domains"]) {
    const list = tool[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((d) => typeof d !== "string"))) {
      return `${at}.${key}: Input should be a valid list of strings`;
    }
  }
  if (tool.allowed_domains !== undefined && tool.blocked_domains !== undefined) {
    return `${at}: Cannot specify both allowed_domains and blocked_domains`;
  }
  return undefined;
}

function checkCacheControl(tools: unknown, system: unknown, messages: unknown[]): string | undefined {
  let found = 0;
  let badTtl: string | undefined;
  const visit = (block: unknown) => {
    if (!block || typeof block !== "object") return;
    const b = block as { cache_control?: unknown; type?: unknown; content?: unknown };
    if (b.cache_control !== undefined && b.cache_control !== null) {
      found++;
      const ttl = (b.cache_control as { ttl?: unknown }).ttl;
      if (ttl !== undefined && ttl !== "5m" && ttl !== "1h") badTtl ??= String(ttl);
    }
    if (b.type === "tool_result" && Array.isArray(b.content)) b.content.forEach(visit);
  };
  if (Array.isArray(tools)) tools.forEach(visit);
  if (Array.isArray(system)) system.forEach(visit);
  for (const message of messages) contentBlocks((message as { content?: unknown }).content)?.forEach(visit);
  if (badTtl !== undefined)
    return `cache_control.ttl: Input should be '5m' or '1h' (got ${JSON.stringify(badTtl)})`;
  if (found > MAX_CACHE_BREAKPOINTS) {
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`;
  }
  return undefined;
}
