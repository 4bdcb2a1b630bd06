/**
 * mitsu — an agent is three JSON fields (`system`, `tools`, `messages`) and a loop.
 * This is the library's public API; `mitsu/simulator` and `mitsu/stream` are subpath exports.
 */

// The conversation model and the stream contracts.
export * from "./messages/index.js";
export * from "./stream/index.js";

// Providers: one adapter per wire protocol, HTTP with retries, the model registry.
export type * from "./providers/provider.js";
export { type AnthropicOptions, createAnthropicProvider } from "./providers/anthropic/anthropic-provider.js";
export { encodeAnthropicRequest } from "./providers/anthropic/encode-request.js";
export { postJson } from "./providers/http/post-json.js";
export { ProviderError } from "./providers/http/provider-error.js";
export type { RetryOptions } from "./providers/http/retry-policy.js";
export { streamWithRetries } from "./providers/http/stream-with-retries.js";

// The loop.
export type * from "./loop/agent-event.js";
export { checkTranscript } from "./loop/check-transcript.js";
export type { MaxTokensPolicy } from "./loop/max-tokens-policy.js";
export type * from "./loop/permission.js";
export { type AgentResult, type RunAgentOptions, runAgent, runAgentToEnd } from "./loop/run-agent.js";
export { INTERRUPTED_MESSAGE } from "./loop/run-tools.js";
export * from "./loop/tool.js";
export { validateInput } from "./loop/validate-input.js";

// Context: system prompt, project instructions, reminders, cache breakpoints, prefix diagnostics.
export * from "./context/index.js";

// Built-in tools, permissions, skills, sessions.
export * from "./permissions/index.js";
export * from "./session/index.js";
export * from "./skills/index.js";
export { type BuiltinToolsOptions, createBuiltinTools } from "./tools/create-builtin-tools.js";
export { Workspace } from "./tools/workspace.js";
