#!/usr/bin/env node
// An MCP server with many tools (`--count N`, default 2000), each with a realistic description and schema
// (about 1.4 KB of definition), for the large-tool-set tests. `tool_NNNN` answers with its name and input.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const args = process.argv.slice(2);
const countAt = args.indexOf("--count");
const count = countAt === -1 ? 2000 : Number(args[countAt + 1]);
const AREAS = ["invoice", "customer", "ticket", "shipment", "warehouse", "payroll", "calendar", "report"];
const VERBS = ["create", "update", "archive", "lookup", "export", "validate", "merge", "notify"];

const tools = Array.from({ length: count }, (_, i) => {
  const area = AREAS[i % AREAS.length];
  const verb = VERBS[Math.floor(i / AREAS.length) % VERBS.length];
  const name = `tool_${String(i).padStart(4, "0")}_${verb}_${area}`;
  return {
    name,
    description: `${verb[0].toUpperCase()}${verb.slice(1)}s a ${area} record in business system ${i}. Use it when the user asks to ${verb} a ${area}; it needs the record id and returns the record as JSON. Records of other systems are not reachable from here, and archived records are read-only.`,
    inputSchema: {
      type: "object",
      properties: {
        id: {
          type: "string",
          description: `The ${area} record's id, as shown in system ${i} (e.g. ${area.slice(0, 3).toUpperCase()}-1234).`,
        },
        fields: {
          type: "array",
          items: { type: "string" },
          description: "The fields to return; all when absent.",
        },
        reason: {
          type: "string",
          description: "Why the change is made, for the audit log (required for updates).",
        },
        dry_run: { type: "boolean", description: "Check the request without changing anything." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 100,
          description: "The most related records to include.",
        },
      },
      required: ["id"],
      additionalProperties: false,
    },
  };
});

const server = new Server({ name: "many", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [
    { type: "text", text: `${request.params.name} ran with ${JSON.stringify(request.params.arguments)}` },
  ],
}));
await server.connect(new StdioServerTransport());
