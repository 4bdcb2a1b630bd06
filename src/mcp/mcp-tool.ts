import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type Tool, ToolError } from "../loop/tool.js";
import type { JsonSchema } from "../messages/index.js";
import { mapCallResult } from "./map-call-result.js";
import { errorText, type McpConnection } from "./mcp-connection.js";

/** A tool description longer than this is cut (a server's manual does not belong in every request). */
export const MAX_DESCRIPTION_CHARS = 2048;

export interface McpToolOptions {
  /** `MCP_TOOL_TIMEOUT`: one call's limit; past it the server is told to cancel. */
  toolTimeoutMs: number;
  /** `MAX_MCP_OUTPUT_TOKENS`. */
  maxOutputTokens: number;
}

/** A tool of an MCP server as a mitsu `Tool`: the model sees it like any other. */
export interface McpTool extends Tool<Record<string, unknown>> {
  /** The server's name as configured, and the tool's own name there. */
  readonly mcp: { server: string; tool: string };
}

/**
 * Wraps one MCP tool. Its input is validated against its `inputSchema` by the loop like any tool's; `run` sends
 * `tools/call` with the run's abort signal (an abort sends the server `notifications/cancelled`) and the per-call
 * timeout, reports the server's progress notifications as the tool's progress, and maps the result (see
 * `mapCallResult`). `readOnly` is the server's `readOnlyHint` annotation, so plan mode allows exactly those.
 */
export function createMcpTool(
  /** The server's connection; anything that calls its tools by name (an SDK app's in-process server too). */
  connection: Pick<McpConnection, "name" | "error" | "callTool">,
  definition: SdkTool,
  name: string,
  options: McpToolOptions,
): McpTool {
  const server = connection.name;
  const description = describe(definition, server);
  return {
    name,
    mcp: { server, tool: definition.name },
    description,
    inputSchema: wireSchema(definition.inputSchema),
    readOnly: definition.annotations?.readOnlyHint === true,
    // What a permission question shows: the call's input itself, as one line of JSON (cut at 200 characters).
    permissionFacts(input) {
      const json = JSON.stringify(input);
      return json === "{}" ? {} : { display: json.length > 200 ? `${json.slice(0, 200)}…` : json };
    },
    summarize(input) {
      const args = JSON.stringify(input);
      return `${definition.name} (MCP ${server})${args === "{}" ? "" : ` ${args.length > 80 ? `${args.slice(0, 79)}…` : args}`}`;
    },
    async run(input, context) {
      const onProgress = context.progress
        ? (p: { progress: number; total?: number | undefined; message?: string | undefined }) =>
            context.progress?.(p.message ?? `${p.progress}${p.total !== undefined ? `/${p.total}` : ""}`)
        : undefined;
      try {
        const result = await connection.callTool(definition.name, input, {
          signal: context.signal,
          timeoutMs: options.toolTimeoutMs,
          ...(onProgress ? { onProgress } : {}),
        });
        return mapCallResult(result, options.maxOutputTokens);
      } catch (error) {
        if (context.signal.aborted) throw error;
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          throw new ToolError(
            `The MCP tool ${definition.name} (server "${server}") did not finish within ${options.toolTimeoutMs} ms (MCP_TOOL_TIMEOUT); the server was asked to cancel it.`,
          );
        }
        if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
          throw new ToolError(
            `The MCP server "${server}" closed the connection during the call to ${definition.name}${connection.error ? ` (${connection.error})` : ""}. Its tools cannot be used until mitsu is restarted.`,
          );
        }
        throw new ToolError(`MCP server "${server}", tool ${definition.name}: ${errorText(error)}`);
      }
    },
  };
}

function describe(definition: SdkTool, server: string): string {
  const text =
    definition.description?.trim() ||
    definition.title ||
    `The ${definition.name} tool of the MCP server ${server}.`;
  return text.length > MAX_DESCRIPTION_CHARS
    ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1).trimEnd()}…`
    : text;
}

/** The schema as sent: `$schema` only names a dialect, and costs tokens on every request. */
function wireSchema(schema: SdkTool["inputSchema"]): JsonSchema {
  const { $schema: _dialect, ...rest } = schema as JsonSchema;
  return { ...rest, type: "object" };
}
