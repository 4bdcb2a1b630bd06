#!/usr/bin/env node
// A small MCP server, written with the SDK, whose one tool asks the user a question mid-call (form elicitation)
// and answers with what came back: the action and the fields.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "elicit", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "book", description: "Books a table", inputSchema: { type: "object", properties: {} } },
    {
      name: "flood",
      description: "Asks 100 questions at once",
      inputSchema: { type: "object", properties: {} },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === "flood") {
    const schema = { type: "object", properties: { ok: { type: "boolean" } } };
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        server.elicitInput({ message: `Question ${i}`, requestedSchema: schema }),
      ),
    );
    const counts = {};
    for (const a of answers) counts[a.action] = (counts[a.action] ?? 0) + 1;
    return { content: [{ type: "text", text: JSON.stringify(counts) }] };
  }
  const answer = await server.elicitInput({
    message: "How many people?",
    requestedSchema: {
      type: "object",
      properties: {
        people: { type: "integer", title: "People", default: 2 },
        terrace: { type: "boolean", title: "Terrace", default: false },
      },
    },
  });
  return { content: [{ type: "text", text: JSON.stringify(answer) }] };
});
await server.connect(new StdioServerTransport());
