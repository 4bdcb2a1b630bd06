export * from "./create-compactor.js";
export * from "./estimate-tokens.js";
export * from "./split-history.js";
export * from "./summary-prompt.js";
