export * from "./describe-tool-call.js";
export * from "./load-settings.js";
export * from "./permission-checker.js";
export * from "./permission-mode.js";
export * from "./permission-rule.js";
export * from "./sandbox-settings.js";
export * from "./save-local-rules.js";
export * from "./split-shell-command.js";
