import { Option } from "commander";
import { type CommandContext, collect } from "./command-context.js";

/** `mitsu mcp list|add|remove|login|logout|approve|deny`: the MCP servers. */
export function registerMcp(ctx: CommandContext): void {
  const { io } = ctx;
  const mcp = ctx.program
    .command("mcp")
    .description("the MCP servers: list, add, remove, approve, deny, login, logout");
  mcp
    .command("list")
    .description("each configured server: transport, scope, state, tool count, and why one failed")
    .option("--mcp-config <file>", "also these servers (repeatable)", collect)
    .option("--strict-mcp-config", "only the --mcp-config servers")
    .action(async (opts) => {
      const { mcpListCommand } = await import("./mcp-command.js");
      ctx.exitCode = await mcpListCommand(io, {
        configFiles: opts.mcpConfig ?? [],
        strict: opts.strictMcpConfig === true,
      });
    });
  mcp
    .command("add")
    .description(
      "add a server: `mitsu mcp add NAME -- COMMAND ARGS…` or `mitsu mcp add --transport http NAME URL`",
    )
    .argument("<name>", "the server's name (its tools are mcp__<name>__<tool>)")
    .argument("[commandOrUrl...]", "after --, the command and its arguments (stdio); or the URL (http, sse)")
    .addOption(
      new Option("-t, --transport <transport>", "how to reach it")
        .choices(["stdio", "http", "sse"])
        .default("stdio"),
    )
    .addOption(
      new Option(
        "-s, --scope <scope>",
        "project: .mcp.json (shared with the repository); user: ~/.mitsu/mcp.json",
      )
        .choices(["project", "user"])
        .default("project"),
    )
    .option("-e, --env <KEY=VALUE>", "an environment variable for a stdio server (repeatable)", collect)
    .option("-H, --header <Name: value>", "an HTTP header for a remote server (repeatable)", collect)
    .action(async (name: string, rest: string[], opts) => {
      const { mcpAddCommand } = await import("./mcp-command.js");
      ctx.exitCode = await mcpAddCommand(io, name, rest, {
        transport: opts.transport,
        scope: opts.scope,
        env: opts.env ?? [],
        header: opts.header ?? [],
      });
    });
  mcp
    .command("remove")
    .description("remove a server from .mcp.json or ~/.mitsu/mcp.json")
    .argument("<name>")
    .addOption(new Option("-s, --scope <scope>", "where to remove it from").choices(["project", "user"]))
    .action(async (name: string, opts) => {
      const { mcpRemoveCommand } = await import("./mcp-command.js");
      ctx.exitCode = await mcpRemoveCommand(io, name, opts.scope);
    });
  mcp
    .command("login")
    .description("log in to a remote server that asks for OAuth (opens the browser)")
    .argument("<name>")
    .action(async (name: string) => {
      const { mcpLoginCommand } = await import("./mcp-command.js");
      ctx.exitCode = await mcpLoginCommand(io, name);
    });
  mcp
    .command("logout")
    .description("forget a remote server's login")
    .argument("<name>")
    .action(async (name: string) => {
      const { mcpLogoutCommand } = await import("./mcp-command.js");
      ctx.exitCode = await mcpLogoutCommand(io, name);
    });
  for (const decision of ["approve", "deny"] as const) {
    mcp
      .command(decision)
      .description(
        `${decision} a server of the project's .mcp.json (the answer to mitsu's question, given ahead)`,
      )
      .argument("<name>")
      .action(async (name: string) => {
        const { mcpApprovalCommand } = await import("./mcp-command.js");
        ctx.exitCode = await mcpApprovalCommand(io, name, decision);
      });
  }
}
