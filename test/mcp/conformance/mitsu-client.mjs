#!/usr/bin/env node
// The adapter the MCP conformance framework runs as "the client": mitsu's MCP client (the built dist/, as a user
// gets it) connects to the scenario's server URL (the last argument) the way a session does — OAuth included, with
// a "browser" that follows the authorization page's redirect — then calls each tool once with input made from its
// schema, as a model would (accepting any elicitation with the fields' defaults), and closes. Exit 0 when the server connected and every call got a result.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectMcpServers, createMcpOAuth } from "../../../dist/mcp/index.js";

const url = process.argv.at(-1);
const home = mkdtempSync(join(tmpdir(), "mitsu-conformance-"));
const browser = async (authorizationUrl) => {
  const answer = await fetch(authorizationUrl, { redirect: "manual" });
  const location = answer.headers.get("location");
  if (location) await fetch(location);
};
const servers = await connectMcpServers(
  { conformance: { type: "http", url } },
  {
    home,
    logDir: false,
    limits: { timeoutMs: 20_000, toolTimeoutMs: 20_000 },
    oauth: createMcpOAuth({ home, interactive: true, openBrowser: browser, loginTimeoutMs: 20_000 }),
    onWarning: (message) => console.error(message),
    // A user who accepts the server's question leaving every field as offered: the schema's defaults (SEP-1034).
    elicit: async () => ({ action: "accept", content: {} }),
  },
);
const [status] = servers.status;
console.log(`${status.state}: ${status.tools} tools`);
let failed = status.state !== "connected";

/** The smallest input that matches a schema: what a model would send to try a tool. */
function sample(schema) {
  if (!schema || typeof schema !== "object") return {};
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "string":
      return "x";
    case "array":
      return [];
    default: {
      const out = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = sample(value);
      return out;
    }
  }
}

for (const tool of servers.tools) {
  try {
    const result = await tool.run(sample(tool.inputSchema), {
      signal: new AbortController().signal,
      toolUseId: "conformance",
      state: new Map(),
    });
    console.log(`${tool.name}: ${JSON.stringify(result).slice(0, 200)}`);
  } catch (error) {
    console.error(`${tool.name} failed: ${error.message}`);
    failed = true;
  }
}
await servers.close();
process.exit(failed ? 1 : 0);
