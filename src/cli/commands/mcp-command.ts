import { stripVTControlCharacters } from "node:util";
import {
  addServerToFile,
  connectMcpServers,
  createMcpOAuth,
  expandServerConfig,
  forgetMcpLogin,
  loadMcpConfig,
  McpConfigError,
  type McpServerConfig,
  type McpServerEntry,
  mcpServerFingerprint,
  parseServerEntry,
  projectMcpFile,
  recordApproval,
  removeServerFromFile,
  startProjectMcp,
  userMcpFile,
} from "../../mcp/index.js";
import { loadPlugins } from "../../plugins/load-plugins.js";
import type { PrintIo } from "../cli-io.js";
import { formatMcpStatus } from "../conversation/mcp-status-text.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { mcpSessionEnv } from "./mcp-session-env.js";

export interface McpAddOptions {
  transport: "stdio" | "http" | "sse";
  scope: "project" | "user";
  env: string[];
  header: string[];
}

/** `mitsu mcp list`: every configured server, connected to (approved ones only), with its state and tool count. */
export async function mcpListCommand(
  io: PrintIo,
  options: { configFiles: string[]; strict: boolean },
): Promise<number> {
  const style = createStyle(colorEnabled(io.stdout as NodeJS.WriteStream));
  const warnings: string[] = [];
  // An untrusted folder's servers are listed as such, never started (as a session would not start them).
  const { env, trusted, repositoryEnv } = await mcpSessionEnv(io);
  // Enabled plugins' servers (approved as installed) are listed and started as a session starts them.
  const { contributions } = await loadPlugins({ cwd: io.cwd, home: io.home });
  const mcp = await startProjectMcp({
    cwd: io.cwd,
    home: io.home,
    env,
    repositoryEnv,
    configFiles: options.configFiles,
    strict: options.strict,
    projectTrusted: trusted,
    extraServers: contributions.mcpServers,
    onWarning: (message) => warnings.push(message),
  });
  try {
    io.stdout.write(`${formatMcpStatus(mcp.status(), style)}\n`);
    // Server failures are on their lines already; the rest (broken files, ignored approvals) is said here.
    const stderrStyle = createStyle(colorEnabled(io.stderr as NodeJS.WriteStream));
    for (const message of warnings.filter(
      (w) => !/^MCP server ".*" (failed to start|needs a login)/.test(w),
    )) {
      io.stderr.write(
        `${stderrStyle.yellow("⚠")} ${colorEnabled(io.stderr as NodeJS.WriteStream) ? message : stripVTControlCharacters(message)}\n`,
      );
    }
  } finally {
    await mcp.servers.close();
  }
  return 0;
}

/**
 * `mitsu mcp add NAME -- COMMAND ARGS…` (stdio) or `mitsu mcp add --transport http|sse NAME URL`: writes the server
 * into the project's `.mcp.json` (approved for this user at once: they typed it) or the user's `~/.mitsu/mcp.json`.
 */
export async function mcpAddCommand(
  io: PrintIo,
  name: string,
  rest: string[],
  options: McpAddOptions,
): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`mitsu: ${message}\n`);
    return 1;
  };
  let config: McpServerConfig;
  try {
    if (options.transport === "stdio") {
      if (options.header.length > 0) return fail("--header is for http and sse servers");
      const [command, ...args] = rest;
      if (!command)
        return fail(
          `give the command after --, e.g. mitsu mcp add ${name} -- npx -y @modelcontextprotocol/server-filesystem .`,
        );
      config = parseServerEntry(name, { command, args, env: pairs(options.env, "=", "--env KEY=VALUE") });
    } else {
      if (options.env.length > 0) return fail("--env is for stdio servers (remote servers take --header)");
      if (rest.length !== 1)
        return fail(
          `give one URL, e.g. mitsu mcp add --transport ${options.transport} ${name} https://example.com/mcp`,
        );
      new URL(rest[0]!);
      config = parseServerEntry(name, {
        type: options.transport,
        url: rest[0],
        headers: pairs(options.header, ":", '--header "Name: value"'),
      });
    }
  } catch (error) {
    return fail(error instanceof TypeError ? `not a URL: ${rest[0]}` : (error as Error).message);
  }
  const file = options.scope === "user" ? userMcpFile(io.home) : projectMcpFile(io.cwd);
  let approvals: string | undefined;
  try {
    await addServerToFile(file, name, config);
    if (options.scope === "project") {
      const { env, repositoryEnv } = await mcpSessionEnv(io, { trusted: true });
      const fingerprint = mcpServerFingerprint(config, env, repositoryEnv);
      approvals = await recordApproval(io.cwd, name, "approve", fingerprint, {
        home: io.home,
      });
    }
  } catch (error) {
    return fail((error as Error).message);
  }
  io.stdout.write(
    `Added the ${config.type} MCP server "${name}" to ${file}${approvals ? ` (approved for you in ${approvals})` : ""}.\n`,
  );
  return 0;
}

/** `mitsu mcp remove NAME [--scope project|user]`: from wherever it is configured (both need `--scope`). */
export async function mcpRemoveCommand(
  io: PrintIo,
  name: string,
  scope: "project" | "user" | undefined,
): Promise<number> {
  const files = { project: projectMcpFile(io.cwd), user: userMcpFile(io.home) };
  const loaded = await loadMcpConfig({ cwd: io.cwd, home: io.home }).catch(() => undefined);
  const where = [...(loaded?.servers ?? []), ...(loaded?.shadowed ?? [])]
    .filter((s) => s.name === name && (s.scope === "project" || s.scope === "user"))
    .map((s) => s.scope as "project" | "user");
  if (!scope && where.length > 1) {
    io.stderr.write(
      `mitsu: "${name}" is configured in ${files.project} and ${files.user}; say which with --scope project or --scope user.\n`,
    );
    return 1;
  }
  const target = scope ?? where[0];
  try {
    if (target && (await removeServerFromFile(files[target], name))) {
      io.stdout.write(`Removed the MCP server "${name}" from ${files[target]}.\n`);
      return 0;
    }
  } catch (error) {
    io.stderr.write(`mitsu: ${(error as Error).message}\n`);
    return 1;
  }
  io.stderr.write(`mitsu: no MCP server named "${name}"${scope ? ` in ${files[scope]}` : ""}.\n`);
  return 1;
}

/** `mitsu mcp approve|deny NAME`: the answer to the question about a project server, given ahead (print mode, CI). */
export async function mcpApprovalCommand(
  io: PrintIo,
  name: string,
  decision: "approve" | "deny",
): Promise<number> {
  const loaded = await loadMcpConfig({ cwd: io.cwd, home: io.home }).catch((error: Error) => error);
  if (loaded instanceof Error) {
    io.stderr.write(`mitsu: ${loaded.message}\n`);
    return 1;
  }
  const inProject = [...loaded.servers, ...loaded.shadowed].find(
    (s) => s.name === name && s.scope === "project",
  );
  if (!inProject) {
    io.stderr.write(
      `mitsu: ${projectMcpFile(io.cwd)} has no server named "${name}" (user servers need no approval).\n`,
    );
    return 1;
  }
  // The approval is of this configuration as it would run in a trusted session: a later change to the server in
  // .mcp.json, or to what its ${VAR}s expand to, is asked about again.
  const { env, repositoryEnv } = await mcpSessionEnv(io, { trusted: true });
  let file: string;
  try {
    const fingerprint = mcpServerFingerprint(inProject.config, env, repositoryEnv);
    file = await recordApproval(io.cwd, name, decision, fingerprint, {
      home: io.home,
    });
  } catch (error) {
    io.stderr.write(`mitsu: ${(error as Error).message}\n`);
    return 1;
  }
  io.stdout.write(
    `${decision === "approve" ? "Approved" : "Denied"} the project MCP server "${name}" (kept in ${file}).\n`,
  );
  return 0;
}

/**
 * `mitsu mcp login NAME`: the OAuth login of a remote server — the browser opens at its authorization page, the
 * redirect comes back to a loopback listener, and the tokens are kept (0600) for every later run.
 */
export async function mcpLoginCommand(
  io: PrintIo,
  name: string,
  options: { openBrowser?: (url: string) => void | Promise<void> } = {},
): Promise<number> {
  const entry = await findServer(io, name);
  if (typeof entry === "string") {
    io.stderr.write(`mitsu: ${entry}\n`);
    return 1;
  }
  if (entry.config.type === "stdio") {
    io.stderr.write(`mitsu: "${name}" is a stdio server; only remote (http, sse) servers log in.\n`);
    return 1;
  }
  const oauth = createMcpOAuth({
    home: io.home,
    interactive: true,
    ...(io.env.BROWSER ? { browser: io.env.BROWSER } : {}),
    onMessage: (m) => io.stdout.write(`${m}\n`),
    ...(options.openBrowser ? { openBrowser: options.openBrowser } : {}),
  });
  const servers = await connectMcpServers([entry], {
    cwd: io.cwd,
    home: io.home,
    env: io.env,
    oauth,
    logDir: false,
  });
  try {
    const status = servers.status[0]!;
    if (status.state !== "connected") {
      io.stderr.write(`mitsu: the login to "${name}" did not succeed: ${status.error}\n`);
      return 1;
    }
    io.stdout.write(`Logged in to the MCP server "${name}" (${status.tools} tools).\n`);
    return 0;
  } finally {
    await servers.close();
  }
}

/** `mitsu mcp logout NAME`: forgets the stored tokens and client registration. */
export async function mcpLogoutCommand(io: PrintIo, name: string): Promise<number> {
  const entry = await findServer(io, name);
  if (typeof entry === "string" || entry.config.type === "stdio") {
    io.stderr.write(
      `mitsu: ${typeof entry === "string" ? entry : `"${name}" is a stdio server, with no login`}\n`,
    );
    return 1;
  }
  const url = expandServerConfig(name, entry.config, io.env);
  const forgotten = await forgetMcpLogin(name, url.type === "stdio" ? "" : url.url, io.home);
  io.stdout.write(
    forgotten ? `Logged out of the MCP server "${name}".\n` : `There was no login for "${name}".\n`,
  );
  return 0;
}

async function findServer(io: PrintIo, name: string): Promise<McpServerEntry | string> {
  const loaded = await loadMcpConfig({ cwd: io.cwd, home: io.home }).catch((error: Error) => error);
  if (loaded instanceof Error) return loaded.message;
  return loaded.servers.find((s) => s.name === name) ?? `no MCP server named "${name}".`;
}

/** `KEY=VALUE` (or `Name: value`) pairs from repeated options; a malformed one is an McpConfigError naming the option. */
function pairs(values: readonly string[], separator: string, usage: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    if (at <= 0) throw new McpConfigError(`malformed ${JSON.stringify(value)}: write ${usage}`);
    result[value.slice(0, at).trim()] = value.slice(at + 1).trim();
  }
  return result;
}
