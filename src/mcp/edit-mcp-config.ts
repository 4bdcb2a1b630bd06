import { readFile } from "node:fs/promises";
import { writeConfigFile } from "../fs/write-config-file.js";
import { McpConfigError, type McpServerConfig } from "./mcp-server-config.js";
import { isObject } from "./parse-mcp-config.js";

/**
 * Adds (or replaces) one server in a configuration file, keeping everything else in it as it was written;
 * creates the file. Written as Claude Code writes `.mcp.json`: stdio entries without `type`, remote ones with it.
 */
export async function addServerToFile(file: string, name: string, config: McpServerConfig): Promise<void> {
  const document = await readDocument(file);
  const servers = isObject(document.mcpServers) ? document.mcpServers : {};
  servers[name] = toJson(config);
  document.mcpServers = servers;
  await writeConfigFile(file, `${JSON.stringify(document, null, 2)}\n`);
}

/** Removes one server from a file; false when the file does not name it (nothing is written then). */
export async function removeServerFromFile(file: string, name: string): Promise<boolean> {
  const document = await readDocument(file);
  if (!isObject(document.mcpServers) || !Object.hasOwn(document.mcpServers, name)) return false;
  delete document.mcpServers[name];
  await writeConfigFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return true;
}

function toJson(config: McpServerConfig): Record<string, unknown> {
  if (config.type !== "stdio") {
    const entry: Record<string, unknown> = { type: config.type, url: config.url };
    if (Object.keys(config.headers).length > 0) entry.headers = config.headers;
    return entry;
  }
  const entry: Record<string, unknown> = { command: config.command, args: config.args };
  if (Object.keys(config.env).length > 0) entry.env = config.env;
  if (config.cwd !== undefined) entry.cwd = config.cwd;
  return entry;
}

async function readDocument(file: string): Promise<Record<string, unknown>> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new McpConfigError(`Cannot read ${file}: ${error.message}`);
  });
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${file} is not valid JSON, so it was not changed: ${(error as Error).message}`);
  }
  if (!isObject(value))
    throw new McpConfigError(`${file} must contain a JSON object, so it was not changed.`);
  return value;
}
