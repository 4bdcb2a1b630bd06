import type { McpServer } from "@agentclientprotocol/sdk";

/**
 * The MCP servers a client hands to `session/new` / `session/load`, as an inline `--mcp-config` value (the
 * harness starts them with the session and stops them with it). A client's values are taken literally: one
 * that holds `${…}` (which mitsu's configuration would fill from the environment, keys included) is refused.
 * Returns undefined when there are none; throws a message for the client for a server it cannot take.
 */
export function clientMcpConfig(servers: readonly McpServer[] | undefined): string | undefined {
  if (!servers || servers.length === 0) return undefined;
  const config: Record<string, unknown> = {};
  for (const server of servers) {
    if (config[server.name] !== undefined)
      throw new Error(`two MCP servers are named ${JSON.stringify(server.name)}`);
    if (JSON.stringify(server).includes("${")) {
      throw new Error(
        `MCP server ${JSON.stringify(server.name)}: \${…} is not expanded in a client's configuration`,
      );
    }
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      config[server.name] = {
        type: server.type,
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
      };
    } else {
      const stdio = server as Extract<McpServer, { command: string }>;
      config[server.name] = {
        command: stdio.command,
        args: stdio.args,
        env: Object.fromEntries(stdio.env.map((e) => [e.name, e.value])),
      };
    }
  }
  return JSON.stringify({ mcpServers: config });
}
