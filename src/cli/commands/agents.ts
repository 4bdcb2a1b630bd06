import type { CommandContext } from "./command-context.js";

/** `mitsu agents`: the sub-agent types and the agent files skipped. */
export function registerAgents(ctx: CommandContext): void {
  const { io } = ctx;
  ctx.program
    .command("agents")
    .description("list the sub-agent types (name, source, tools, model) and agent files that were skipped")
    .action(async () => {
      const { agentsCommand } = await import("./agents-command.js");
      ctx.exitCode = await agentsCommand(io);
    });
}
