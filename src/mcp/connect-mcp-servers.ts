import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "../loop/tool.js";
import { assignServerParts } from "./assign-server-parts.js";
import { capMcpToolBytes, count, sizeName } from "./cap-mcp-tools.js";
import { mitsuClientInfo } from "./client-info.js";
import { compareNames } from "./load-mcp-config.js";
import type { McpConnection, McpConnectionState, McpOAuthProvider } from "./mcp-connection.js";
import type { McpElicit } from "./mcp-elicitation.js";
import { type McpLimits, mcpLimitsFromEnv } from "./mcp-limits.js";
import type { McpPrompt } from "./mcp-prompt.js";
import {
  McpConfigError,
  type McpScope,
  type McpServerEntry,
  type McpTransportType,
} from "./mcp-server-config.js";
import type { McpTool } from "./mcp-tool.js";
import { disambiguatedName, mcpServerPart, mcpToolNameWithPart } from "./mcp-tool-name.js";
import { isObject, parseServerEntry } from "./parse-mcp-config.js";
import { printable } from "./printable.js";

/** How one configured server stands, for `mitsu mcp list`, `/mcp` and embedders. */
export interface McpServerStatus {
  name: string;
  scope: McpScope;
  transport: McpTransportType;
  state: McpConnectionState;
  /** Why it failed or needs a login. */
  error?: string;
  tools: number;
  prompts: number;
  resources: boolean;
  /** How long connecting took (start, `initialize`, the lists). */
  durationMs: number;
  /** Where its stderr and log messages go. */
  logFile?: string;
}

export interface ConnectMcpServersOptions {
  /** The stdio servers' working folder. Default `process.cwd()`. */
  cwd?: string;
  /** For `${VAR}` expansion, the servers' minimal environment and the limits. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** `~/.mitsu` is under it (the servers' logs). Default `os.homedir()`. */
  home?: string;
  /** Where each server's stderr and log messages go; false for nowhere. Default `~/.mitsu/mcp-logs`. */
  logDir?: string | false;
  /** Default from `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT`, `MAX_MCP_OUTPUT_TOKENS` in `env`. */
  limits?: Partial<McpLimits>;
  /** OAuth for remote servers that ask for it (see `createMcpOAuth`). */
  oauth?: (server: string, url: string) => McpOAuthProvider;
  fetch?: FetchLike;
  /** What is worth telling the user once: a server that failed, a tool name that clashed. */
  onWarning?: (message: string) => void;
  /** Sent in `initialize`. Default `mitsu` and the package's version. */
  clientInfo?: { name: string; version: string };
  /** Who answers a server's elicitation (a question to the user mid-call); absent, each is declined. */
  elicit?: McpElicit;
}

/** What `connectMcpServers` gives: the tools and prompts of the servers that connected, and how each stands. */
export interface McpServers {
  /**
   * The MCP tools, after the built-ins in a session's `tools`: sorted by name (the same order on every run, so the
   * prompt-cache prefix holds), then `ListMcpResources` and `ReadMcpResource` when a connected server has
   * resources. Changes only in `applyChanges()`.
   */
  readonly tools: Tool<never>[];
  /** The servers' prompts as slash commands, sorted by name. */
  readonly prompts: McpPrompt[];
  readonly status: McpServerStatus[];
  /** The connected servers' `instructions` (of `initialize`), by server name, sorted by name. */
  readonly instructions: Array<{ server: string; text: string }>;
  /** Names of the servers whose tool list changed since the last `applyChanges()` (`notifications/tools/list_changed`). */
  readonly pendingChanges: string[];
  /**
   * Makes the changed tool lists current. Call it between user turns, never during one: the `tools` of a turn
   * stay as they were sent. Returns why the tools changed (for the prefix diagnostic), or undefined when nothing did.
   */
  applyChanges(): string | undefined;
  /** Called when a server's tools changed (the new list waits for `applyChanges`). */
  onChange(listener: (server: string) => void): void;
  /** Stops every server (stdio servers with their process groups) and closes every connection. */
  close(): Promise<void>;
}

/**
 * Connects to MCP servers, all at once, each within its timeout; resolves when every one has connected or failed
 * (a failure is reported through `onWarning` and in `status`, and the others work). `config` is
 * `{"name": {command, args, env} | {type: "http", url, headers} | …}`, a whole `{"mcpServers": …}` file's object, or
 * entries from `loadMcpConfig`. Strings may hold `${VAR}` / `${VAR:-default}`.
 */
export async function connectMcpServers(
  config: Record<string, unknown> | readonly McpServerEntry[],
  options: ConnectMcpServersOptions = {},
): Promise<McpServers> {
  const env = options.env ?? process.env;
  const limits = { ...mcpLimitsFromEnv(env), ...options.limits };
  const home = options.home ?? homedir();
  const logDir =
    options.logDir === false ? undefined : (options.logDir ?? join(resolve(home), ".mitsu", "mcp-logs"));
  const onWarning = options.onWarning;
  const warn = (message: string) => onWarning?.(printable(message));
  const listeners: Array<(server: string) => void> = [];
  const pending = new Set<string>();

  const { entries, invalid } = toEntries(config);
  // The SDK loads only when a server is to connect (see mcp-runtime.ts).
  const runtime = entries.length > 0 ? await import("./mcp-runtime.js") : undefined;
  const connections = await Promise.all(
    entries.map((entry) =>
      runtime!.McpConnection.open({
        entry,
        env,
        cwd: resolve(options.cwd ?? process.cwd()),
        ...(logDir ? { logDir } : {}),
        timeoutMs: limits.timeoutMs,
        clientInfo: options.clientInfo ?? mitsuClientInfo(),
        ...(options.oauth ? { oauth: options.oauth } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.elicit ? { elicit: options.elicit } : {}),
        onToolsChanged: (connection) => {
          pending.add(connection.name);
          for (const listener of listeners) listener(connection.name);
        },
      }),
    ),
  );
  for (const { name, message } of invalid)
    warn(message.startsWith("MCP server") ? message : `MCP server "${name}": ${message}`);
  for (const c of connections) {
    if (c.state === "failed")
      warn(`MCP server "${c.name}" failed to start, so its tools are not available: ${c.error}`);
    if (c.state === "needs-auth")
      warn(`MCP server "${c.name}" needs a login: ${c.error}. Run \`mitsu mcp login ${c.name}\`.`);
  }

  // One tool-name prefix per server, whatever their names normalise to (a clash must not widen a rule).
  const { parts, renamed } = assignServerParts(entries);
  for (const r of renamed) {
    warn(
      `MCP server "${r.server}" would share the tool prefix mcp__${r.plain}__ with the server "${r.holder}"; its tools are named mcp__${r.part}__… (rules for mcp__${r.plain} do not cover them)`,
    );
  }
  let tools = runtime ? buildTools(runtime, connections, parts, limits, warn) : [];
  let prompts = runtime ? buildPrompts(runtime, connections, parts) : [];
  return {
    get tools() {
      return tools;
    },
    get prompts() {
      return prompts;
    },
    get status() {
      return [
        ...invalid.map((i) => ({
          name: i.name,
          scope: "cli" as McpScope,
          transport: "stdio" as McpTransportType,
          state: "failed" as McpConnectionState,
          error: i.message,
          tools: 0,
          prompts: 0,
          resources: false,
          durationMs: 0,
        })),
        ...connections.map((c) => statusOf(c, entries.find((e) => e.name === c.name)!.scope)),
      ].sort((a, b) => compareNames(a.name, b.name));
    },
    get pendingChanges() {
      return [...pending].sort(compareNames);
    },
    get instructions() {
      return connections
        .flatMap((c) => {
          const text = c.instructions?.trim();
          return text ? [{ server: c.name, text }] : [];
        })
        .sort((a, b) => compareNames(a.server, b.server));
    },
    applyChanges() {
      if (pending.size === 0) return undefined;
      const changed = [...pending].sort(compareNames);
      pending.clear();
      for (const c of connections) c.applyPendingTools();
      const before = tools.map((t) => t.name).join("\n");
      if (!runtime) return undefined;
      tools = buildTools(runtime, connections, parts, limits, warn);
      prompts = buildPrompts(runtime, connections, parts);
      const names = changed.map((n) => `"${n}"`).join(", ");
      const what =
        before === tools.map((t) => t.name).join("\n") ? "changed its tools" : "changed its tool list";
      return `the MCP server${changed.length === 1 ? "" : "s"} ${names} ${what} (notifications/tools/list_changed)`;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

type McpRuntime = typeof import("./mcp-runtime.js");

function statusOf(c: McpConnection, scope: McpScope): McpServerStatus {
  const status: McpServerStatus = {
    name: c.name,
    scope,
    transport: c.transport,
    state: c.state,
    tools: c.state === "connected" ? c.tools.length : 0,
    prompts: c.state === "connected" ? c.prompts.length : 0,
    resources: c.state === "connected" && c.hasResources,
    durationMs: c.durationMs,
  };
  if (c.error) status.error = c.error;
  if (c.logFile) status.logFile = c.logFile;
  return status;
}

/**
 * Every connected server's tools, named `mcp__<part>__<tool>` (`parts`: unique per server), sorted; two tools of
 * one server whose names normalise alike get a second name and a warning. At most `maxToolsPerServer` of a server
 * (the first by name) and `maxToolBytes` of definitions in all are kept; a notice names each server that lost tools.
 */
function buildTools(
  { createMcpTool, createResourceTools }: McpRuntime,
  connections: readonly McpConnection[],
  parts: ReadonlyMap<string, string>,
  limits: McpLimits,
  warn: (m: string) => void,
): Tool<never>[] {
  const candidates: Array<{
    connection: McpConnection;
    definition: McpConnection["tools"][number];
    name: string;
  }> = [];
  /** Per server, the tools left out by the per-server cap. */
  const overCount = new Map<string, number>();
  for (const connection of [...connections].sort((a, b) => compareNames(a.name, b.name))) {
    if (connection.state !== "connected") continue;
    const part = parts.get(connection.name) ?? mcpServerPart(connection.name);
    const listed = [...connection.tools].sort((a, b) => compareNames(a.name, b.name));
    if (listed.length > limits.maxToolsPerServer) {
      overCount.set(connection.name, listed.length - limits.maxToolsPerServer);
    }
    for (const definition of listed.slice(0, limits.maxToolsPerServer)) {
      candidates.push({
        connection,
        definition,
        name: mcpToolNameWithPart(part, connection.name, definition.name),
      });
    }
  }
  // Sorted by (server, tool): the first keeps the plain name whichever server answered first.
  const taken = new Map<string, { server: string; tool: string }>();
  const tools: McpTool[] = [];
  for (const { connection, definition, name } of candidates) {
    let final = name;
    const holder = taken.get(name);
    for (let attempt = 0; taken.has(final); attempt++) {
      final = disambiguatedName(name, connection.name, definition.name, attempt);
    }
    if (holder) {
      warn(
        `MCP tool name clash: "${definition.name}" of server "${connection.name}" would be ${name}, the name of "${holder.tool}" of server "${holder.server}"; it is named ${final}.`,
      );
    }
    taken.set(final, { server: connection.name, tool: definition.name });
    tools.push(createMcpTool(connection, definition, final, limits));
  }
  tools.sort((a, b) => compareNames(a.name, b.name));
  const capped = capMcpToolBytes(
    tools.map((tool) => ({
      tool,
      server: tool.mcp.server,
      bytes: Buffer.byteLength(
        JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
      ),
    })),
    limits.maxToolBytes,
  );
  // One notice per server that lost tools, with every reason.
  for (const server of [...new Set([...overCount.keys(), ...capped.dropped.keys()])].sort(compareNames)) {
    const listed = connections.find((c) => c.name === server)?.tools.length ?? 0;
    const byCount = overCount.get(server) ?? 0;
    const byBytes = capped.dropped.get(server) ?? 0;
    const why = [
      ...(byCount > 0
        ? [`at most ${count(limits.maxToolsPerServer)} tools of one server are sent to the model`]
        : []),
      ...(byBytes > 0
        ? [`the MCP tool definitions are capped at ${sizeName(limits.maxToolBytes)} in all`]
        : []),
    ].join(", and ");
    warn(
      `MCP server "${server}" lists ${count(listed)} tools; ${count(byCount + byBytes)} were left out (${why})`,
    );
  }
  const result = capped.kept as unknown as Tool<never>[];
  if (connections.some((c) => c.state === "connected" && c.hasResources)) {
    result.push(...createResourceTools(() => connections, limits.maxOutputTokens));
  }
  return result;
}

function buildPrompts(
  { createMcpPrompt }: McpRuntime,
  connections: readonly McpConnection[],
  parts: ReadonlyMap<string, string>,
): McpPrompt[] {
  const prompts: McpPrompt[] = [];
  const taken = new Set<string>();
  for (const connection of [...connections].sort((a, b) => compareNames(a.name, b.name))) {
    if (connection.state !== "connected") continue;
    for (const prompt of [...connection.prompts].sort((a, b) => compareNames(a.name, b.name))) {
      const part = parts.get(connection.name) ?? mcpServerPart(connection.name);
      const plain = mcpToolNameWithPart(part, connection.name, prompt.name);
      let name = plain;
      for (let attempt = 0; taken.has(name); attempt++) {
        name = disambiguatedName(plain, connection.name, prompt.name, attempt);
      }
      taken.add(name);
      prompts.push(createMcpPrompt(connection, prompt, name));
    }
  }
  return prompts.sort((a, b) => compareNames(a.name, b.name));
}

function toEntries(config: Record<string, unknown> | readonly McpServerEntry[]): {
  entries: McpServerEntry[];
  invalid: Array<{ name: string; message: string }>;
} {
  if (Array.isArray(config)) return { entries: [...(config as McpServerEntry[])], invalid: [] };
  const record = config as Record<string, unknown>;
  const servers = isObject(record.mcpServers) ? record.mcpServers : record;
  const entries: McpServerEntry[] = [];
  const invalid: Array<{ name: string; message: string }> = [];
  for (const [name, value] of Object.entries(servers)) {
    try {
      entries.push({
        name,
        scope: "cli",
        source: "connectMcpServers",
        config: parseServerEntry(name, value),
      });
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error;
      invalid.push({ name, message: error.message });
    }
  }
  entries.sort((a, b) => compareNames(a.name, b.name));
  return { entries, invalid };
}
