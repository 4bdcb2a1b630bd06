import type { CommandContext } from "./command-context.js";

/** `mitsu plugin …`: plugins and marketplaces in Claude Code's format. */
export function registerPlugin(ctx: CommandContext): void {
  const { io } = ctx;
  ctx.program
    .command("plugin")
    .description("plugins and marketplaces in Claude Code's format: mitsu plugin help")
    .argument("[words...]", "marketplace add|list|remove|update, install, uninstall, enable, disable, list")
    .allowUnknownOption()
    .action(async (words: string[]) => {
      const { pluginCommand } = await import("../conversation/plugin-command.js");
      ctx.exitCode = await pluginCommand(words, io);
    });
}
