import { DEFAULT_MAX_MCP_OUTPUT_TOKENS } from "./cap-mcp-output.js";

/** `MCP_TIMEOUT`'s default: a server has this long to start, answer `initialize` and list its tools. */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** `MCP_TOOL_TIMEOUT`'s default: one tool call's limit (builds and test runs behind MCP tools take minutes). */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 10 * 60_000;

/**
 * `MITSU_MCP_MAX_TOOLS`' default: the most tools of one server sent to the model. Large servers have a few hundred
 * (GitHub's has about 100); a list of thousands is a broken or hostile server, whose definitions would fill the
 * context window of every request.
 */
export const DEFAULT_MAX_MCP_TOOLS_PER_SERVER = 500;
/**
 * `MITSU_MCP_MAX_TOOL_BYTES`' default: the most bytes of MCP tool definitions (name, description, schema as JSON)
 * sent in one request, all servers together. 256 KiB is about 64,000 tokens, a third of a 200k context window: a
 * capped list still leaves the conversation room (1 MiB, about 250,000 tokens, was more than a whole window, so
 * every request would have been refused as too long before it was sent).
 */
export const DEFAULT_MAX_MCP_TOOL_BYTES = 256 * 1024;

export interface McpLimits {
  timeoutMs: number;
  toolTimeoutMs: number;
  maxOutputTokens: number;
  /** The most tools of one server that are offered (the first by name); the rest are left out with a notice. */
  maxToolsPerServer: number;
  /** The most bytes of MCP tool definitions offered, all servers together (see `capMcpTools`). */
  maxToolBytes: number;
}

/**
 * The limits from `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT` (milliseconds), `MAX_MCP_OUTPUT_TOKENS`, `MITSU_MCP_MAX_TOOLS`
 * and `MITSU_MCP_MAX_TOOL_BYTES`; a value that is not a positive number is ignored.
 */
export function mcpLimitsFromEnv(env: Record<string, string | undefined>): McpLimits {
  return {
    timeoutMs: positive(env.MCP_TIMEOUT) ?? DEFAULT_MCP_TIMEOUT_MS,
    toolTimeoutMs: positive(env.MCP_TOOL_TIMEOUT) ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
    maxOutputTokens: positive(env.MAX_MCP_OUTPUT_TOKENS) ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS,
    maxToolsPerServer: positive(env.MITSU_MCP_MAX_TOOLS) ?? DEFAULT_MAX_MCP_TOOLS_PER_SERVER,
    maxToolBytes: positive(env.MITSU_MCP_MAX_TOOL_BYTES) ?? DEFAULT_MAX_MCP_TOOL_BYTES,
  };
}

function positive(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}
