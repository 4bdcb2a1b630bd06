#!/usr/bin/env node
// An MCP server, written with the SDK, whose tool `ask` asks the user to fill a form mid-call (form elicitation) and
// answers with exactly what came back. Its `form` argument picks the form: a booking (text with a format and
// lengths, a bounded integer, a boolean, a choice with titles), a hostile one (escape sequences in the message and
// titles), one whose message is 1 MB, one with 10,000 fields, one with a nested object. Each answer is also appended
// to $FORM_LOG, one JSON line, so a test sees what the server received ($FORM_ASKED gets the form's name when it
// is sent). `late` asks only after its call was cancelled.
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const ESC = "\x1b";
const FORMS = {
  booking: {
    message: "Book a table at Chez Mitsu",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", title: "Your name", minLength: 2, maxLength: 20 },
        email: { type: "string", title: "Email", format: "email" },
        people: { type: "integer", title: "People", minimum: 1, maximum: 12 },
        terrace: { type: "boolean", title: "Terrace" },
        time: {
          type: "string",
          title: "Time",
          oneOf: [
            { const: "19:00", title: "Seven o'clock" },
            { const: "21:00", title: "Nine o'clock" },
          ],
        },
      },
      required: ["name", "people"],
    },
  },
  hostile: {
    message: `Hello${ESC}]0;pwned${ESC}\\${ESC}[2J${ESC}[31mRED\u009b31m\u202eevil\r\nsecond line`,
    requestedSchema: {
      type: "object",
      properties: { token: { type: "string", title: `Tok${ESC}[5men${ESC}]8;;http://x${ESC}\\` } },
      required: ["token"],
    },
  },
  huge: {
    message: `Please ${"x".repeat(1_000_000)}`,
    requestedSchema: { type: "object", properties: { a: { type: "string" } } },
  },
  wide: {
    message: "Fill 10,000 fields",
    requestedSchema: {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, { type: "string" }])),
    },
  },
  nested: {
    message: "A nested object",
    requestedSchema: {
      type: "object",
      properties: { address: { type: "object", properties: { street: { type: "string" } } } },
    },
  },
};

const server = new Server({ name: "form", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "ask",
      description: "Asks the user to fill a form",
      inputSchema: { type: "object", properties: { form: { type: "string" } }, required: ["form"] },
    },
  ],
}));

function log(entry) {
  if (process.env.FORM_LOG) appendFileSync(process.env.FORM_LOG, `${JSON.stringify(entry)}\n`);
}

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const form = String(request.params.arguments?.form);
  if (form === "late") {
    // Says the call arrived ($FORM_ASKED), waits for it to be cancelled, then asks anyway.
    if (process.env.FORM_ASKED) appendFileSync(process.env.FORM_ASKED, "late (call received)\n");
    await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
    log({ form, asking: true });
    const answer = await server.elicitInput(FORMS.booking).catch((error) => ({ error: String(error) }));
    log({ form, answer });
    return { content: [{ type: "text", text: "too late" }] };
  }
  // $FORM_ASKED: a line for each question sent, before its answer comes.
  if (process.env.FORM_ASKED) appendFileSync(process.env.FORM_ASKED, `${form}\n`);
  const answer = await server.elicitInput(FORMS[form]).catch((error) => ({ error: String(error) }));
  log({ form, answer });
  return { content: [{ type: "text", text: JSON.stringify(answer) }] };
});
await server.connect(new StdioServerTransport());
