export type * from "./loop/agent-event.js";
export type * from "./loop/permission.js";
export * from "./loop/tool.js";
export * from "./messages/index.js";
export type * from "./providers/provider.js";
export type * from "./stream/json-path.js";
export type * from "./stream/json-result.js";
export type * from "./stream/stream-event.js";
