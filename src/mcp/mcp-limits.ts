import { DEFAULT_MAX_MCP_OUTPUT_TOKENS } from "./cap-mcp-output.js";

/** `MCP_TIMEOUT`'s default: a server has this long to start, answer `initialize` and list its tools. */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** `MCP_TOOL_TIMEOUT`'s default: one tool call's limit (builds and test runs behind MCP tools take minutes). */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 10 * 60_000;

export interface McpLimits {
  timeoutMs: number;
  toolTimeoutMs: number;
  maxOutputTokens: number;
}

/** The limits from `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT` (milliseconds) and `MAX_MCP_OUTPUT_TOKENS`; a value that is not a positive number is ignored. */
export function mcpLimitsFromEnv(env: Record<string, string | undefined>): McpLimits {
  return {
    timeoutMs: positive(env.MCP_TIMEOUT) ?? DEFAULT_MCP_TIMEOUT_MS,
    toolTimeoutMs: positive(env.MCP_TOOL_TIMEOUT) ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
    maxOutputTokens: positive(env.MAX_MCP_OUTPUT_TOKENS) ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS,
  };
}

function positive(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}
