import { type CommandContext, positiveInt } from "./command-context.js";

/** `mitsu remote`: durable sessions through the Restate ingress. */
export function registerRemote(ctx: CommandContext): void {
  const { io } = ctx;
  ctx.program
    .command("remote")
    .description(
      "talk to durable sessions through the Restate ingress: -p sends a prompt and prints the answer; follow prints a session's events as they happen; approve, deny, pending, transcript, cancel, list",
    )
    .argument(
      "[action]",
      "follow | approve | deny | pending | transcript | cancel | list (none: send the prompt of -p)",
    )
    .option("--session <id>", "the session id (every action but list)")
    .option("-p, --prompt <text>", "the prompt to send")
    .option(
      "--ingress <url>",
      "the Restate ingress (default RESTATE_INGRESS_URL, else http://localhost:8080)",
    )
    .option("--object <name>", "the session object's name (an embedder's own; default mitsu-session)")
    .option(
      "--admin <url>",
      "cancel, list: the Restate admin API (default RESTATE_ADMIN_URL, else http://localhost:9070)",
    )
    .option(
      "--workspace <dir>",
      "the session's checkout, inside the workers' workspaces folder (first prompt only)",
    )
    .option("--max-turns <n>", "model calls for this prompt", positiveInt)
    .option("--call <tool-use-id>", "approve / deny: the tool call (needed when several wait)")
    .option("--message <text>", "deny: what the model is told")
    .option("--follow", "with -p: print the session's messages as they are stored, not only the answer")
    .option("--json", "print JSON")
    .action(async (action: string | undefined, opts) => {
      const actions = ["follow", "approve", "deny", "pending", "transcript", "cancel", "list"];
      if (action !== undefined && !actions.includes(action)) {
        io.stderr.write(
          `mitsu remote: unknown action ${JSON.stringify(action)} (use ${actions.join(", ")}, or -p)\n`,
        );
        ctx.exitCode = 1;
        return;
      }
      if (action !== "list" && opts.session === undefined) {
        io.stderr.write("error: required option '--session <id>' not specified\n");
        ctx.exitCode = 1;
        return;
      }
      const { remoteCommand } = await import("./remote-command.js");
      ctx.exitCode = await remoteCommand(
        {
          action: (action ?? "prompt") as "prompt",
          session: (opts.session as string | undefined) ?? "",
          ingress:
            (opts.ingress as string | undefined) ?? io.env.RESTATE_INGRESS_URL ?? "http://localhost:8080",
          ...(opts.object !== undefined ? { object: opts.object as string } : {}),
          admin: (opts.admin as string | undefined) ?? io.env.RESTATE_ADMIN_URL ?? "http://localhost:9070",
          ...(opts.prompt !== undefined ? { prompt: opts.prompt as string } : {}),
          ...(opts.workspace !== undefined ? { workspace: opts.workspace as string } : {}),
          ...(opts.maxTurns ? { maxTurns: opts.maxTurns as number } : {}),
          ...(opts.call !== undefined ? { call: opts.call as string } : {}),
          ...(opts.message !== undefined ? { message: opts.message as string } : {}),
          ...(opts.follow === true ? { follow: true } : {}),
          json: opts.json === true,
        },
        io,
      );
    });
}
