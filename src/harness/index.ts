export * from "./append-prompt.js";
export type * from "./coding-agent.js";
export * from "./create-coding-agent.js";
export * from "./inline-capabilities.js";
export * from "./model-choice.js";
export * from "./session-log-hooks.js";
export * from "./sessions-dir.js";
export * from "./subagent-log.js";
export * from "./workspace-trust.js";
