export { DEFAULT_MAX_MCP_OUTPUT_TOKENS } from "./cap-mcp-output.js";
export {
  type ConnectMcpServersOptions,
  connectMcpServers,
  type McpServerStatus,
  type McpServers,
} from "./connect-mcp-servers.js";
export { addServerToFile, removeServerFromFile } from "./edit-mcp-config.js";
export { expandServerConfig, variablesUsed } from "./expand-server-config.js";
export {
  type LoadedMcpConfig,
  type LoadMcpConfigOptions,
  loadMcpConfig,
  type McpConfigProblem,
  projectMcpFile,
  userMcpFile,
} from "./load-mcp-config.js";
export type { McpConnectionState, McpOAuthProvider } from "./mcp-connection.js";
export type { McpElicit, McpElicitationAnswer, McpElicitationRequest } from "./mcp-elicitation.js";
export {
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_MCP_TOOL_TIMEOUT_MS,
  type McpLimits,
  mcpLimitsFromEnv,
} from "./mcp-limits.js";
export type { McpPrompt } from "./mcp-prompt.js";
export { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from "./mcp-resource-tool-names.js";
export {
  McpConfigError,
  type McpScope,
  type McpServerConfig,
  type McpServerEntry,
  type McpTransportType,
} from "./mcp-server-config.js";
export { mcpServerEnv } from "./mcp-server-env.js";
export type { McpTool } from "./mcp-tool.js";
export { mcpServerPart, mcpToolName } from "./mcp-tool-name.js";
export { createMcpOAuth, forgetMcpLogin, type McpOAuthOptions } from "./oauth/create-mcp-oauth.js";
export { parseMcpConfig, parseServerEntry } from "./parse-mcp-config.js";
export { printable } from "./printable.js";
export {
  type ApprovalState,
  approvalOf,
  approvalsFile,
  localSettingsFile,
  mcpServerFingerprint,
  type ProjectApprovals,
  readProjectApprovals,
  recordApproval,
} from "./project-approvals.js";
export {
  type McpApprovalAnswer,
  type ProjectMcp,
  type SkippedMcpServer,
  type StartProjectMcpOptions,
  startProjectMcp,
} from "./start-project-mcp.js";
