import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { sdkWorld } from "./sdk-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: the protocol's JSON lines, read by field
type Json = Record<string, any>;

/**
 * A client that speaks as the Python SDK (claude-agent-sdk) does — its argv (`--system-prompt ""`, two-token
 * flags, in-process servers as `{"type": "sdk"}` entries of `--mcp-config`), its `initialize` (`hooks` and
 * `agents`, no `sdkMcpServers`), its answers (`updatedInput` always, an in-process MCP server answering the
 * whole handshake over `mcp_message`). The Python SDK itself cannot be installed here: this pins the protocol.
 */
describe("a Python-SDK-shaped client", () => {
  it("hooks, canUseTool, an in-process MCP server named in --mcp-config, agents from initialize", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 0; echo py" } }] },
      { content: [{ type: "tool_use", name: "mcp__calc__add", input: { a: 20, b: 22 } }] },
      { content: [{ type: "text", text: "42" }] },
    ]);
    const stdin = new PassThrough();
    const send = (value: Json) => stdin.write(`${JSON.stringify(value)}\n`);
    const seen: string[] = [];
    const out: Json[] = [];
    let buffer = "";
    const onLine = (message: Json) => {
      out.push(message);
      if (message.type === "control_response" && message.response.request_id === "req_1_init") {
        seen.push(`initialized:${message.response.subtype}`);
        send({
          type: "user",
          message: { role: "user", content: "add" },
          parent_tool_use_id: null,
          session_id: "default",
        });
      }
      if (message.type === "result") stdin.end();
      if (message.type !== "control_request") return;
      const { request_id, request } = message;
      const answer = (response: Json) =>
        send({ type: "control_response", response: { subtype: "success", request_id, response } });
      if (request.subtype === "hook_callback") {
        seen.push(`hook:${request.callback_id}:${request.input.tool_name}`);
        answer({ continue: true });
      } else if (request.subtype === "can_use_tool") {
        seen.push(`ask:${request.tool_name}`);
        answer({ behavior: "allow", updatedInput: request.input });
      } else if (request.subtype === "mcp_message") {
        const m = request.message;
        seen.push(`mcp:${m.method}`);
        if (m.method === "initialize")
          answer({
            mcp_response: {
              jsonrpc: "2.0",
              id: m.id,
              result: {
                protocolVersion: "2025-06-18",
                capabilities: { tools: {} },
                serverInfo: { name: "calc", version: "1" },
              },
            },
          });
        else if (m.method === "tools/list")
          answer({
            mcp_response: {
              jsonrpc: "2.0",
              id: m.id,
              result: {
                tools: [
                  {
                    name: "add",
                    description: "Adds",
                    inputSchema: {
                      type: "object",
                      properties: { a: { type: "number" }, b: { type: "number" } },
                    },
                  },
                ],
              },
            },
          });
        else if (m.method === "tools/call")
          answer({
            mcp_response: {
              jsonrpc: "2.0",
              id: m.id,
              result: {
                content: [{ type: "text", text: String(m.params.arguments.a + m.params.arguments.b) }],
              },
            },
          });
        else answer({ mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } });
      }
    };
    const stdout = {
      write: (chunk: string) => {
        buffer += chunk;
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== "") onLine(JSON.parse(line));
          newline = buffer.indexOf("\n");
        }
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    send({
      type: "control_request",
      request_id: "req_1_init",
      request: {
        subtype: "initialize",
        hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0"] }] },
        agents: { helper: { description: "Helps.", prompt: "You help." } },
      },
    });
    const code = await main(
      [
        "--output-format",
        "stream-json",
        "--verbose",
        "--system-prompt",
        "",
        "--max-turns",
        "5",
        "--permission-prompt-tool",
        "stdio",
        "--mcp-config",
        JSON.stringify({ mcpServers: { calc: { type: "sdk", name: "calc" } } }),
        "--input-format",
        "stream-json",
      ],
      {
        stdin,
        stdout,
        stderr: { write: () => true } as unknown as NodeJS.WritableStream,
        cwd: world.cwd,
        home: world.home,
        env: world.env,
      },
    );
    expect(code).toBe(0);
    expect(seen).toEqual([
      "mcp:initialize",
      "mcp:notifications/initialized",
      "mcp:tools/list",
      "initialized:success",
      "hook:hook_0:Bash",
      "ask:Bash",
      "ask:mcp__calc__add",
      "mcp:tools/call",
    ]);
    const init = out.find((m) => m.type === "system" && m.subtype === "init");
    expect(init).toMatchObject({ mcp_servers: [{ name: "calc", status: "connected" }] });
    expect(init?.agents).toContain("helper");
    expect(out.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "42" });
    // mitsu's own system prompt (the Python SDK's `--system-prompt ""` means none was given).
    expect(JSON.stringify(world.sim.requests[0]?.body.system)).toContain("mitsu");
    expect(JSON.stringify(world.sim.requests[2]?.body.messages.at(-1))).toContain("42");
  });
});
