export * from "./describe-tool-call.js";
export * from "./load-settings.js";
export * from "./parse-bash-command.js";
export * from "./permission-checker.js";
export * from "./permission-rule.js";
export * from "./protected-path.js";
export * from "./trust-store.js";
