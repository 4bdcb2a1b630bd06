import type { CommandContext } from "./command-context.js";

/** `mitsu skills`: the skills and commands found. */
export function registerSkills(ctx: CommandContext): void {
  const { io } = ctx;
  ctx.program
    .command("skills")
    .description("list the skills and commands found, where from, and files that were skipped")
    .action(async () => {
      const { skillsCommand } = await import("./skills-command.js");
      ctx.exitCode = await skillsCommand(io);
    });
}
