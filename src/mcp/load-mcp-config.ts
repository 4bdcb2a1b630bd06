import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { McpConfigError, type McpScope, type McpServerEntry } from "./mcp-server-config.js";
import { parseMcpConfig } from "./parse-mcp-config.js";

export interface LoadMcpConfigOptions {
  /** The project folder: its `.mcp.json` is read. */
  cwd: string;
  /** For `~/.mitsu/mcp.json`. Default `os.homedir()`. */
  home?: string;
  /** `--mcp-config` values, in order: a file path, or inline JSON (a value that starts with `{`). */
  configFiles?: readonly string[];
  /** `--strict-mcp-config`: only the `configFiles` servers, none from the project, the user or plugins. */
  strict?: boolean;
  /** Servers of enabled plugins (see `loadPlugins`): below the user's file in precedence. */
  extraServers?: readonly McpServerEntry[];
}

/** A file or entry that could not be used: reported once, and the rest goes on. */
export interface McpConfigProblem {
  source: string;
  server?: string;
  message: string;
}

export interface LoadedMcpConfig {
  /** One entry per name, sorted by name (a deterministic order for the `tools` prefix). */
  servers: McpServerEntry[];
  problems: McpConfigProblem[];
  /** Entries hidden by one of the same name with a higher precedence (command line > project > user). */
  shadowed: McpServerEntry[];
}

/** The project's `.mcp.json` (Claude Code's place and format). */
export function projectMcpFile(cwd: string): string {
  return join(resolve(cwd), ".mcp.json");
}

/** The user's servers, trusted in every project. */
export function userMcpFile(home: string = homedir()): string {
  return join(resolve(home), ".mitsu", "mcp.json");
}

/**
 * Reads the user's `~/.mitsu/mcp.json`, the project's `.mcp.json` and each `--mcp-config`. A missing project
 * or user file is no error; a `--mcp-config` file that cannot be read throws (the user named it). A file
 * that is not valid is a problem for its servers only. Names clash by precedence: the command line over the
 * project over the user, as in Claude Code (the hidden entries are in `shadowed`).
 */
export async function loadMcpConfig(options: LoadMcpConfigOptions): Promise<LoadedMcpConfig> {
  const home = options.home ?? homedir();
  const sources: Array<{ scope: McpScope; source: string; text: string | undefined }> = [];
  if (!options.strict) {
    for (const [scope, file] of [
      ["user", userMcpFile(home)],
      ["project", projectMcpFile(options.cwd)],
    ] as const) {
      sources.push({ scope, source: file, text: await readOptional(file) });
    }
  }
  for (const value of options.configFiles ?? []) {
    if (value.trimStart().startsWith("{")) {
      sources.push({ scope: "cli", source: "--mcp-config", text: value });
      continue;
    }
    const file = resolve(options.cwd, value);
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new McpConfigError(`Cannot read the MCP configuration ${file} (--mcp-config): ${error.message}`);
    });
    sources.push({ scope: "cli", source: file, text });
  }

  const byName = new Map<string, McpServerEntry>();
  const result: LoadedMcpConfig = { servers: [], problems: [], shadowed: [] };
  if (!options.strict) for (const entry of options.extraServers ?? []) byName.set(entry.name, entry);
  for (const { scope, source, text } of sources) {
    if (text === undefined) continue;
    let parsed: ReturnType<typeof parseMcpConfig>;
    try {
      parsed = parseMcpConfig(text, source);
    } catch (error) {
      if (!(error instanceof McpConfigError) || scope === "cli") throw error;
      result.problems.push({ source, message: error.message });
      continue;
    }
    for (const problem of parsed.problems) result.problems.push({ source, ...problem });
    for (const [name, config] of parsed.servers) {
      const previous = byName.get(name);
      if (previous) result.shadowed.push(previous);
      byName.set(name, { name, scope, source, config });
    }
  }
  result.servers = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  return result;
}

/** Code-unit order: the same on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function readOptional(file: string): Promise<string | undefined> {
  return readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw new McpConfigError(`Cannot read the MCP configuration ${file}: ${error.message}`);
  });
}
