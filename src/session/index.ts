export * from "./check-session-line.js";
export * from "./find-session.js";
export * from "./latest-session.js";
export * from "./load-session.js";
export * from "./resume-messages.js";
export * from "./resume-session.js";
export * from "./session-lock.js";
export * from "./session-log.js";
