export type * from "./content.js";
export type * from "./message.js";
export type * from "./stop-reason.js";
export type * from "./tool-definition.js";
export * from "./usage.js";
