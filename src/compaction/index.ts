export * from "./create-compactor.js";
export * from "./estimate-tokens.js";
export * from "./image-dimensions.js";
export * from "./image-tokens.js";
export * from "./latest-prompt.js";
export * from "./split-history.js";
export * from "./summary-prompt.js";
export * from "./trim-history.js";
