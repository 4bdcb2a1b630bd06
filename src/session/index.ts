export * from "./load-session.js";
export * from "./resume-messages.js";
export * from "./session-log.js";
