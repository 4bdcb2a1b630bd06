/**
 * The MCP parts that load the official SDK (and zod with it, ~100 ms of module loading): `connectMcpServers`
 * imports this module only when there is a server to connect, so a session without MCP servers never pays for it.
 */
export { McpConnection } from "./mcp-connection.js";
export { createMcpPrompt } from "./mcp-prompt.js";
export { createResourceTools } from "./mcp-resource-tools.js";
export { createMcpTool } from "./mcp-tool.js";
