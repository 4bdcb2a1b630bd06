import type { CommandContext } from "./command-context.js";

/**
 * `mitsu acp`: the Agent Client Protocol on stdin/stdout, for editors. Its options are the prompt command's own:
 * main's parse turns `mitsu acp [options]` into `[options] --acp`, so this entry serves the help listing, and
 * answers only options given before `acp`.
 */
export function registerAcp(ctx: CommandContext): void {
  ctx.program
    .command("acp")
    .description(
      "serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim); takes mitsu's options after it",
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      // Reached only with options before `acp` (`mitsu --trust acp`): `mitsu acp …` is parsed as mitsu's own.
      ctx.io.stderr.write("mitsu acp: give the options after acp (mitsu acp --trust …)\n");
      ctx.exitCode = 1;
    });
}
