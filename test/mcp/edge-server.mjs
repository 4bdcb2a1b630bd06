#!/usr/bin/env node
// A small MCP server, written with the SDK, for the edges the real servers do not reach: a slow tool (timeouts,
// cancellation), errors, a huge output, list_changed, a crash mid-call, a server that never answers initialize,
// pagination, every content type, odd tool names and a grandchild process. Options come as arguments:
//   --no-initialize   never answer `initialize`
//   --page-size N     `tools/list` in pages of N
//   --grandchild FILE start a long-lived grandchild at once and write its pid to FILE
//   --events FILE     append one JSON line per event worth checking (cancellations, calls)
//   --prefix TEXT     prefix every tool name (several servers with different tools)
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const events = option("--events");
const record = (event) => {
  if (events) appendFileSync(events, `${JSON.stringify(event)}\n`);
};
const prefix = option("--prefix") ?? "";
const pageSize = Number(option("--page-size") ?? 0);

if (option("--grandchild")) {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(option("--grandchild"), String(child.pid));
}

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const object = (properties = {}, required = []) => ({ type: "object", properties, required });
let extraTool = false;

const tools = () =>
  [
    {
      name: "echo",
      description: "Echoes the text.",
      inputSchema: object({ text: { type: "string" } }, ["text"]),
      annotations: { readOnlyHint: true },
    },
    {
      name: "slow",
      description: "Waits ms milliseconds, reporting progress.",
      inputSchema: object({ ms: { type: "number" } }, ["ms"]),
    },
    { name: "fail", description: "Returns an error result.", inputSchema: object() },
    { name: "throws", description: "Answers with a JSON-RPC error.", inputSchema: object() },
    {
      name: "huge",
      description: "Returns chars characters.",
      inputSchema: object({ chars: { type: "number" } }, ["chars"]),
    },
    { name: "crash", description: "Exits in the middle of the call.", inputSchema: object() },
    { name: "change_tools", description: "Adds a tool and says so (list_changed).", inputSchema: object() },
    { name: "contents", description: "Returns one of every content type.", inputSchema: object() },
    { name: "structured", description: "Returns structured content only.", inputSchema: object() },
    {
      name: "env",
      description: "Returns the names of its environment variables.",
      inputSchema: object(),
      annotations: { readOnlyHint: true },
    },
    {
      name: "spawn_grandchild",
      description: "Starts a long-lived child process and returns its pid.",
      inputSchema: object(),
    },
    {
      name: "weird.name/with spaces",
      description: "A name with characters providers reject.",
      inputSchema: object(),
    },
    {
      name: `a_very_long_tool_name_${"x".repeat(60)}`,
      description: "A name over 64 characters.",
      inputSchema: object(),
    },
    ...(extraTool
      ? [{ name: "added_later", description: "Appeared after list_changed.", inputSchema: object() }]
      : []),
  ].map((t) => ({ ...t, name: `${prefix}${t.name}` }));

const server = new Server(
  { name: "edge-server", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const all = tools();
  if (!pageSize) return { tools: all };
  const start = Number(request.params?.cursor ?? 0);
  const next = start + pageSize;
  return { tools: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) };
});

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    });
  });

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const name = request.params.name.slice(prefix.length);
  const input = request.params.arguments ?? {};
  record({ call: name });
  switch (name) {
    case "echo":
      return { content: [{ type: "text", text: String(input.text) }] };
    case "slow": {
      extra.signal.addEventListener("abort", () =>
        record({ cancelled: "slow", reason: String(extra.signal.reason) }),
      );
      const token = request.params._meta?.progressToken;
      const steps = 4;
      for (let i = 1; i <= steps; i++) {
        await sleep(input.ms / steps, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` },
          });
        }
      }
      return { content: [{ type: "text", text: `waited ${input.ms} ms` }] };
    }
    case "fail":
      return { content: [{ type: "text", text: "it went wrong" }], isError: true };
    case "throws":
      throw new Error("thrown by the tool");
    case "huge":
      return { content: [{ type: "text", text: "y".repeat(input.chars) }] };
    case "crash":
      setTimeout(() => process.exit(3), 10);
      return new Promise(() => {});
    case "change_tools":
      extraTool = true;
      await server.sendToolListChanged();
      return { content: [{ type: "text", text: "added" }] };
    case "contents":
      return {
        content: [
          { type: "text", text: "plain text" },
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
          {
            type: "resource",
            resource: { uri: "edge://notes.txt", mimeType: "text/plain", text: "embedded text" },
          },
          {
            type: "resource",
            resource: { uri: "edge://data.bin", mimeType: "application/octet-stream", blob: "AAECAwQF" },
          },
          {
            type: "resource_link",
            uri: "edge://big.csv",
            name: "big.csv",
            mimeType: "text/csv",
            description: "a large table",
          },
        ],
      };
    case "structured":
      return { content: [], structuredContent: { temperature: 21, unit: "C" } };
    case "env":
      return { content: [{ type: "text", text: Object.keys(process.env).sort().join(",") }] };
    case "spawn_grandchild": {
      const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      return { content: [{ type: "text", text: String(child.pid) }] };
    }
    default:
      return { content: [{ type: "text", text: `called ${name}` }] };
  }
});

server.setRequestHandler(ListPromptsRequestSchema, async () => ({
  prompts: [
    {
      name: "greet",
      description: "Greets someone.",
      arguments: [{ name: "name", required: true }, { name: "style" }],
    },
  ],
}));
server.setRequestHandler(GetPromptRequestSchema, async (request) => {
  const { name, style } = request.params.arguments ?? {};
  return {
    messages: [
      {
        role: "user",
        content: { type: "text", text: `Say hello to ${name}${style ? ` in a ${style} way` : ""}.` },
      },
    ],
  };
});
server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [
    { uri: "edge://readme", name: "readme", mimeType: "text/plain" },
    { uri: "edge://logo", name: "logo", mimeType: "image/png" },
  ],
}));
server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  if (request.params.uri === "edge://readme")
    return { contents: [{ uri: "edge://readme", text: "Read me first." }] };
  if (request.params.uri === "edge://logo")
    return { contents: [{ uri: "edge://logo", mimeType: "image/png", blob: PNG }] };
  throw new Error(`no resource ${request.params.uri}`);
});

if (args.includes("--no-initialize")) {
  // Reads stdin and never answers: a server stuck before its handshake.
  process.stdin.on("data", () => {});
} else {
  await server.connect(new StdioServerTransport());
}
