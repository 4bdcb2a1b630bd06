import { McpConfigError, type McpServerConfig } from "./mcp-server-config.js";

/** The servers of one configuration file, and the entries that were skipped (each with why). */
export interface ParsedMcpConfig {
  servers: Map<string, McpServerConfig>;
  /** One per server entry that cannot be used; the other servers of the file still are. */
  problems: Array<{ server: string; message: string }>;
}

/**
 * Reads `{"mcpServers": {"name": {…}}}`. A file that is not that shape throws an `McpConfigError` naming it; a
 * server entry that is wrong is reported in `problems` and skipped, so one typo does not cost the other servers.
 * Accepted entries: `{command, args?, env?, cwd?}` (`type` absent or `"stdio"`), `{type: "http", url, headers?}`
 * (also written `"streamable-http"`), `{type: "sse", url, headers?}`; an entry with a `url` and no `type` is HTTP.
 */
export function parseMcpConfig(text: string, file: string): ParsedMcpConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`Invalid JSON in MCP configuration ${file}: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new McpConfigError(`MCP configuration ${file} must contain a JSON object.`);
  const section = value.mcpServers;
  if (section === undefined) return { servers: new Map(), problems: [] };
  if (!isObject(section)) throw new McpConfigError(`"mcpServers" in ${file} must be an object.`);
  const result: ParsedMcpConfig = { servers: new Map(), problems: [] };
  for (const [name, entry] of Object.entries(section)) {
    try {
      result.servers.set(name, parseServerEntry(name, entry));
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error;
      result.problems.push({ server: name, message: `${error.message} (in ${file})` });
    }
  }
  return result;
}

/** One server entry, checked; throws an `McpConfigError` that names the server and the field at fault. */
export function parseServerEntry(name: string, entry: unknown): McpServerConfig {
  const fail = (why: string): never => {
    throw new McpConfigError(`MCP server "${name}": ${why}`);
  };
  if (name.trim() === "") fail("the name is empty");
  if (!isObject(entry)) return fail("the entry must be an object");
  const type = entry.type ?? (entry.url !== undefined ? "http" : "stdio");
  if (type === "stdio") {
    if (typeof entry.command !== "string" || entry.command.trim() === "")
      fail('"command" must be a non-empty string');
    const config: McpServerConfig = {
      type: "stdio",
      command: entry.command as string,
      args: stringArray(entry.args, "args", fail),
      env: stringRecord(entry.env, "env", fail),
    };
    if (entry.cwd !== undefined) {
      if (typeof entry.cwd !== "string") fail('"cwd" must be a string');
      config.cwd = entry.cwd as string;
    }
    return config;
  }
  if (type === "http" || type === "streamable-http" || type === "sse") {
    if (typeof entry.url !== "string" || entry.url.trim() === "") fail('"url" must be a non-empty string');
    return {
      type: type === "sse" ? "sse" : "http",
      url: entry.url as string,
      headers: stringRecord(entry.headers, "headers", fail),
    };
  }
  return fail(`unknown "type" ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`);
}

function stringArray(value: unknown, key: string, fail: (why: string) => never): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
    fail(`"${key}" must be an array of strings`);
  return [...(value as string[])];
}

function stringRecord(value: unknown, key: string, fail: (why: string) => never): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || Object.values(value).some((item) => typeof item !== "string"))
    fail(`"${key}" must be an object of strings`);
  return { ...(value as Record<string, string>) };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
