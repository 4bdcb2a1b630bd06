/**
 * mitsu — an agent is three JSON fields (`system`, `tools`, `messages`) and a loop. This is the library's
 * public API: the conversation model and stream contracts, the provider adapters (one per wire protocol) and
 * the model registry, the loop, the context (system prompt, reminders, cache breakpoints), the built-in tools,
 * permissions, hooks, skills, sub-agents (agent definitions and the Task tool), MCP servers and sessions, and the composition root that assembles them into the coding agent
 * (`createCodingAgent`). `mitsu/simulator`, `mitsu/stream` and `mitsu/testing` are subpath exports.
 */
export * from "./agents/index.js";
export * from "./compaction/index.js";
export * from "./context/index.js";
export { type AddedFolder, type FolderAdded, FolderSet } from "./fs/folder-set.js";
export * from "./harness/index.js";
export * from "./hooks/index.js";
export type * from "./loop/agent-event.js";
export { checkTranscript } from "./loop/check-transcript.js";
export type * from "./loop/history-replacement.js";
export { type Journal, type ModelCallInfo, passThroughJournal, type ToolCallInfo } from "./loop/journal.js";
export type { MaxTokensPolicy } from "./loop/max-tokens-policy.js";
export type * from "./loop/permission.js";
export { USER_REJECTED_MESSAGE, USER_STOPPED_MESSAGE } from "./loop/permission.js";
export {
  type AgentResult,
  type PrepareRequestInfo,
  type RunAgentOptions,
  runAgent,
  runAgentToEnd,
} from "./loop/run-agent.js";
export { INTERRUPTED_MESSAGE } from "./loop/run-tools.js";
export type * from "./loop/spawn.js";
export { summarizeCall } from "./loop/summarize-call.js";
export * from "./loop/tool.js";
export * from "./loop/tool-state.js";
export { validateInput } from "./loop/validate-input.js";
export * from "./mcp/index.js";
export * from "./messages/index.js";
export * from "./permissions/index.js";
export {
  type ChildEnvOptions,
  childEnv,
  PROVIDER_KEY_ENV_NAMES,
  SECRET_ENV_LIST,
} from "./process/child-env.js";
export { startChildWatchdog, watchProcessGroup } from "./process/child-watchdog.js";
export { type AnthropicOptions, createAnthropicProvider } from "./providers/anthropic/anthropic-provider.js";
export { encodeAnthropicRequest } from "./providers/anthropic/encode-request.js";
export { completeText } from "./providers/complete-text.js";
export { createGeminiProvider, type GeminiProviderOptions } from "./providers/gemini/gemini-provider.js";
export { postJson } from "./providers/http/post-json.js";
export { ProviderError } from "./providers/http/provider-error.js";
export type { RetryOptions } from "./providers/http/retry-policy.js";
export { streamWithRetries } from "./providers/http/stream-with-retries.js";
export {
  DEFAULT_LIMITS,
  isModelAlias,
  MODEL_ALIASES,
  MODEL_CATALOG,
  type ModelAlias,
  SMALL_MODELS,
} from "./providers/model-catalog.js";
export { catalogPrice, MODEL_PRICES, type ModelPrice, usageCost } from "./providers/model-prices.js";
export {
  helperModel,
  type ModelEntry,
  type ResolvedModel,
  resolveModel,
} from "./providers/model-registry.js";
export {
  createOpenAIChatProvider,
  type OpenAIChatProviderOptions,
} from "./providers/openai-chat/openai-chat-provider.js";
export { OPENAI_CHAT_QUIRKS } from "./providers/openai-chat/quirks.js";
export {
  createOpenAIResponsesProvider,
  type OpenAIResponsesProviderOptions,
} from "./providers/openai-responses/openai-responses-provider.js";
export type * from "./providers/provider.js";
export {
  hasWebSearch,
  readWebSearch,
  type WebSearchOptions,
  type WebSearchResult,
  webSearch,
} from "./providers/web-search.js";
export { withXmlToolProtocol, type XmlToolProtocolOptions } from "./providers/xml/index.js";
export * from "./session/index.js";
export * from "./skills/index.js";
export * from "./stream/index.js";
export {
  BackgroundShells,
  type BackgroundShellsOptions,
  type ShellInfo,
  type ShellRead,
} from "./tools/background-shells.js";
export { createBashOutputTool } from "./tools/bash-output-tool.js";
export { createBashTool } from "./tools/bash-tool.js";
export { type BuiltinToolsOptions, createBuiltinTools } from "./tools/create-builtin-tools.js";
export { createEditTool } from "./tools/edit-tool.js";
export { createExitPlanModeTool, type ExitPlanModeOptions } from "./tools/exit-plan-mode-tool.js";
export type { CommandTerminal, FileAccess } from "./tools/file-access.js";
export { createGlobTool } from "./tools/glob-tool.js";
export { createGrepTool } from "./tools/grep-tool.js";
export { createKillShellTool } from "./tools/kill-shell-tool.js";
export { type Attachment, readAttachment } from "./tools/read-attachment.js";
export { createReadTool } from "./tools/read-tool.js";
export {
  checkSandbox,
  launchStdio,
  SANDBOX_PROTECTED,
  type SandboxLaunch,
  type SandboxOptions,
  SandboxUnavailableError,
  sandboxCommand,
} from "./tools/sandbox.js";
export { holdPlaceholders, releasePlaceholders, type SandboxMask } from "./tools/sandbox-masks.js";
export { getTodos, TODO_LIST, type TodoItem } from "./tools/todo-list.js";
export { createTodoWriteTool } from "./tools/todo-write-tool.js";
export { createToolSearchTool, searchTools, type ToolSearchInput } from "./tools/tool-search-tool.js";
export { createWebFetchTool, type WebFetchToolOptions } from "./tools/web-fetch-tool.js";
export {
  createWebSearchTool,
  type WebSearchAnswer,
  type WebSearchToolOptions,
} from "./tools/web-search-tool.js";
export { Workspace } from "./tools/workspace.js";
export { createWriteTool } from "./tools/write-tool.js";
