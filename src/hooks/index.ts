export * from "./create-hook-runner.js";
export * from "./hook-answer.js";
export * from "./hook-approvals.js";
export * from "./hook-event.js";
export * from "./hooked-can-use-tool.js";
export * from "./load-hooks.js";
export * from "./run-command-hook.js";
export * from "./with-post-tool-hooks.js";
