import { type Tool, ToolError } from "../loop/tool.js";
import type { ImageBlock, TextBlock } from "../messages/index.js";
import { capMcpOutput } from "./cap-mcp-output.js";
import { mapResourceContents } from "./map-mcp-content.js";
import { errorText, type McpConnection } from "./mcp-connection.js";
import { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from "./mcp-resource-tool-names.js";

/**
 * `ListMcpResources` and `ReadMcpResource`, over the connected servers that offer resources (`servers()` is read
 * on each call, so a reconnected server is found). Both are read-only. The caller adds them only when at least
 * one connected server has resources, so a session without any does not pay for their definitions.
 */
export function createResourceTools(
  servers: () => readonly McpConnection[],
  maxOutputTokens: number,
): Tool<never>[] {
  const withResources = () => servers().filter((s) => s.state === "connected" && s.hasResources);
  const find = (name: string) => {
    const server = withResources().find((s) => s.name === name);
    if (!server) {
      const names = withResources().map((s) => JSON.stringify(s.name));
      throw new ToolError(
        `No connected MCP server named ${JSON.stringify(name)} has resources. Servers with resources: ${names.join(", ") || "none"}.`,
      );
    }
    return server;
  };

  const list: Tool<{ server?: string }> = {
    name: LIST_RESOURCES_TOOL,
    description:
      "Lists the resources (files, records, documents) that the connected MCP servers offer, with their URIs, and the URI templates they accept. Read one with ReadMcpResource.",
    inputSchema: {
      type: "object",
      properties: {
        server: { type: "string", description: "Only this server's resources (its name as configured)." },
      },
      additionalProperties: false,
    },
    readOnly: true,
    summarize: (input) => `${LIST_RESOURCES_TOOL}${input.server ? ` ${input.server}` : ""}`,
    async run(input, context) {
      const targets = input.server !== undefined ? [find(input.server)] : withResources();
      const lines: string[] = [];
      for (const server of targets) {
        try {
          const { resources, templates } = await server.listResources(context.signal);
          lines.push(
            `Server "${server.name}": ${resources.length} resource${resources.length === 1 ? "" : "s"}`,
          );
          for (const r of resources) {
            const details = [r.mimeType, r.description].filter(Boolean).join("; ");
            lines.push(`- ${r.uri} — ${r.name}${details ? ` (${details})` : ""}`);
          }
          for (const t of templates)
            lines.push(
              `- template ${t.uriTemplate} — ${t.name}${t.description ? ` (${t.description})` : ""}`,
            );
        } catch (error) {
          lines.push(`Server "${server.name}": listing failed: ${errorText(error)}`);
        }
      }
      const text = lines.join("\n") || "No connected MCP server has resources.";
      const capped = capMcpOutput([{ type: "text", text }], maxOutputTokens);
      return capped as TextBlock[];
    },
  };

  const read: Tool<{ server: string; uri: string }> = {
    name: READ_RESOURCE_TOOL,
    description:
      "Reads one resource of an MCP server by its URI (from ListMcpResources, or a template filled in).",
    inputSchema: {
      type: "object",
      properties: {
        server: { type: "string", description: "The server's name as configured." },
        uri: { type: "string", description: "The resource's URI." },
      },
      required: ["server", "uri"],
      additionalProperties: false,
    },
    readOnly: true,
    summarize: (input) => `${READ_RESOURCE_TOOL} ${input.server} ${input.uri}`,
    permissionFacts: (input) => ({ display: `${input.server} ${input.uri}` }),
    async run(input, context) {
      const server = find(input.server);
      let result: Awaited<ReturnType<McpConnection["readResource"]>>;
      try {
        result = await server.readResource(input.uri, context.signal);
      } catch (error) {
        if (context.signal.aborted) throw error;
        throw new ToolError(
          `Reading ${input.uri} from MCP server "${server.name}" failed: ${errorText(error)}`,
        );
      }
      const blocks: Array<TextBlock | ImageBlock> = result.contents.map((c) => mapResourceContents(c));
      if (blocks.length === 0) blocks.push({ type: "text", text: `(${input.uri} has no content)` });
      return capMcpOutput(blocks, maxOutputTokens);
    },
  };
  return [list as unknown as Tool<never>, read as unknown as Tool<never>];
}
