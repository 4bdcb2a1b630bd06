/**
 * One MCP server as a user writes it (Claude Code's `.mcp.json` format): a command to start (stdio), or the URL
 * of a Streamable HTTP or SSE endpoint. Strings may hold `${VAR}` and `${VAR:-default}`; they are expanded only
 * when the server is started (see `expandServerConfig`), so a listing never needs the variables.
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpSseServerConfig;

export interface McpStdioServerConfig {
  type: "stdio";
  command: string;
  args: string[];
  /** Added to the minimal environment the server gets (see `mcpServerEnv`). */
  env: Record<string, string>;
  /** The server's working folder; default the project folder. */
  cwd?: string;
}

export interface McpHttpServerConfig {
  type: "http";
  url: string;
  headers: Record<string, string>;
}

export interface McpSseServerConfig {
  type: "sse";
  url: string;
  headers: Record<string, string>;
}

export type McpTransportType = McpServerConfig["type"];

/**
 * Where a server was configured. A project's `.mcp.json` comes with a cloned repository, so its servers start
 * only once the user approved them; user-level (`~/.mitsu/mcp.json`) and command-line servers are trusted, and so
 * are an installed plugin's (approved by installing or enabling it, see `loadPlugins`).
 */
export type McpScope = "project" | "user" | "cli" | "plugin";

/** A configured server: its name, where it was written, and its configuration as written (not expanded). */
export interface McpServerEntry {
  name: string;
  scope: McpScope;
  /** The file it was read from (or `--mcp-config` for inline JSON). */
  source: string;
  config: McpServerConfig;
}

/** A configuration file or server entry that cannot be used; the message names the file and the server. */
export class McpConfigError extends Error {
  override name = "McpConfigError";
}
