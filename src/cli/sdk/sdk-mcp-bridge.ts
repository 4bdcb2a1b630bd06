import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "../../loop/tool.js";
import { mitsuClientInfo } from "../../mcp/client-info.js";
import { DEFAULT_MAX_MCP_OUTPUT_TOKENS } from "../../mcp/index.js";
import type { McpCallResult } from "../../mcp/map-call-result.js";
import { DEFAULT_MCP_TOOL_TIMEOUT_MS } from "../../mcp/mcp-limits.js";
import { createMcpTool } from "../../mcp/mcp-tool.js";
import { mcpToolName } from "../../mcp/mcp-tool-name.js";
import type { ControlChannel } from "./control-channel.js";

/** The MCP protocol version mitsu's client asks for. */
const PROTOCOL_VERSION = "2025-06-18";

/** An in-process server's handshake, as the SDK captured it (`initialize.sdkMcpServerManifests`). */
export interface SdkMcpManifest {
  initializeResult?: Record<string, unknown>;
  toolsListResult?: { tools?: McpToolDefinition[] };
}

/** An in-process server of the app, as `mcp_status` and `system/init` report it. */
export interface SdkMcpServerStatus {
  name: string;
  status: "connected" | "failed";
  error?: string;
  serverInfo?: { name: string; version: string };
  tools: McpToolDefinition[];
}

/**
 * The app's in-process MCP servers (`createSdkMcpServer`, named in `initialize.sdkMcpServers`) as MCP servers of
 * mitsu: each JSON-RPC message goes to the app as an `mcp_message` control request, its answer comes back in
 * the control response. The handshake is taken from the SDK's captured manifest when it sent one, else done over
 * the channel. Each server's tools become mitsu tools named `mcp__<server>__<tool>`, asked about like any MCP
 * tool. A server that fails is reported (`failed`, with why) and has no tools.
 */
export async function connectSdkMcpServers(
  names: readonly string[],
  manifests: Record<string, SdkMcpManifest> | undefined,
  channel: ControlChannel,
): Promise<{ tools: Tool<never>[]; status: SdkMcpServerStatus[] }> {
  const tools: Tool<never>[] = [];
  const status: SdkMcpServerStatus[] = [];
  for (const name of names) {
    let nextId = 0;
    const rpc = async (method: string, params?: unknown, signal?: AbortSignal) => {
      const answer = await channel.request(
        {
          subtype: "mcp_message",
          server_name: name,
          message: { jsonrpc: "2.0", id: `mitsu-${nextId++}`, method, ...(params ? { params } : {}) },
        },
        signal,
      );
      const response = answer.mcp_response as { result?: unknown; error?: { message?: string } } | undefined;
      if (response?.error) throw new Error(response.error.message ?? "the server answered with an error");
      return (response?.result ?? {}) as Record<string, unknown>;
    };
    try {
      const manifest = manifests?.[name];
      let init = manifest?.initializeResult;
      let listed = manifest?.toolsListResult?.tools;
      if (!init) {
        init = await rpc("initialize", {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: mitsuClientInfo(),
        });
        await channel.request({
          subtype: "mcp_message",
          server_name: name,
          message: { jsonrpc: "2.0", method: "notifications/initialized" },
        });
      }
      if (!listed) {
        listed = [];
        if ((init.capabilities as { tools?: unknown } | undefined)?.tools) {
          let cursor: string | undefined;
          do {
            const page = await rpc("tools/list", cursor ? { cursor } : undefined);
            listed.push(...((page.tools as McpToolDefinition[] | undefined) ?? []));
            cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
          } while (cursor);
        }
      }
      const connection = {
        name,
        error: undefined,
        callTool: async (tool: string, args: Record<string, unknown>, options: { signal: AbortSignal }) =>
          (await rpc("tools/call", { name: tool, arguments: args }, options.signal)) as McpCallResult,
      };
      for (const definition of listed) {
        tools.push(
          createMcpTool(connection, definition, mcpToolName(name, definition.name), {
            toolTimeoutMs: DEFAULT_MCP_TOOL_TIMEOUT_MS,
            maxOutputTokens: DEFAULT_MAX_MCP_OUTPUT_TOKENS,
          }) as unknown as Tool<never>,
        );
      }
      const info = init.serverInfo as { name?: unknown; version?: unknown } | undefined;
      status.push({
        name,
        status: "connected",
        ...(typeof info?.name === "string"
          ? { serverInfo: { name: info.name, version: String(info.version ?? "") } }
          : {}),
        tools: listed,
      });
    } catch (error) {
      status.push({ name, status: "failed", error: (error as Error).message, tools: [] });
    }
  }
  return { tools, status };
}

/**
 * A message an in-process server sends on its own (an `mcp_message` control request from the app): a request
 * of the server's (`ping`, sampling, elicitation) is answered — `ping` with an empty result, the rest with
 * "method not found" — by a JSON-RPC response sent back the same way; notifications are taken note of.
 */
export function answerServerMessage(channel: ControlChannel, server: string, message: unknown): void {
  const m = message as { id?: unknown; method?: unknown } | null;
  if (typeof m?.method !== "string" || m.id === undefined || m.id === null) return;
  const reply =
    m.method === "ping"
      ? { jsonrpc: "2.0", id: m.id, result: {} }
      : {
          jsonrpc: "2.0",
          id: m.id,
          error: { code: -32601, message: `${m.method} is not supported by mitsu's MCP client` },
        };
  channel.request({ subtype: "mcp_message", server_name: server, message: reply }).catch(() => {});
}

/**
 * The in-process servers named in `--mcp-config` (the Python SDK writes them there as
 * `{"type": "sdk", "name": …}`; the TypeScript SDK names them in `initialize` instead), taken out of the
 * configuration mitsu's own MCP loader reads. Only inline JSON is looked into; a file is left as it is.
 */
export function splitSdkServers(configs: readonly string[]): { configs: string[]; sdkServers: string[] } {
  const sdkServers: string[] = [];
  const rest: string[] = [];
  for (const config of configs) {
    let parsed: { mcpServers?: Record<string, { type?: unknown }> } | undefined;
    try {
      parsed = config.trim().startsWith("{") ? JSON.parse(config) : undefined;
    } catch {
      parsed = undefined;
    }
    const servers = parsed?.mcpServers;
    if (!servers || typeof servers !== "object") {
      rest.push(config);
      continue;
    }
    const others: Record<string, unknown> = {};
    for (const [name, server] of Object.entries(servers)) {
      if (server?.type === "sdk") sdkServers.push(name);
      else others[name] = server;
    }
    if (Object.keys(others).length > 0) rest.push(JSON.stringify({ ...parsed, mcpServers: others }));
  }
  return { configs: rest, sdkServers };
}
