/** `npm run bench`: every benchmark, one after the other (pass --quick for a short run). */
await import("./stream-assembly/run.js");
await import("./cache-prefix/run.js");
await import("./compaction/run.js");
await import("./long-session/run.js");
await import("./subagents/run.js");
await import("./mcp-startup/run.js");
await import("./markdown/run.js");
await import("./startup/run.js");
await import("./durable/run.js");
await import("./terminal-bytes/run.js");
