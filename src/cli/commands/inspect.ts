import { Option } from "commander";
import { type CommandContext, collect, positiveInt } from "./command-context.js";

/** `mitsu inspect`: the exact request mitsu would send for a prompt (sends nothing). */
export function registerInspect(ctx: CommandContext): void {
  const { io } = ctx;
  ctx.program
    .command("inspect")
    .description("show the exact request mitsu would send for a prompt in this workspace (sends nothing)")
    .argument("[prompt...]", "the prompt (not with --compact)")
    .option("--model <provider:model>", "the model (or mitsu's --model before `inspect`)")
    .option("--provider <api>", "the wire format: anthropic, openai-chat, openai-responses, gemini")
    .option("--max-tokens <n>", "max_tokens", positiveInt)
    .addOption(
      new Option("--tool-protocol <protocol>", "how tools reach the model")
        .choices(["native", "xml"])
        .default("native"),
    )
    .option("--add-dir <dir>", "another workspace folder (repeatable)", collect)
    .option("--json", "print only the request as JSON")
    .option(
      "--agent <name>",
      "show the first request of this sub-agent type (e.g. Explore) for the prompt as its task",
    )
    .option(
      "--compact [focus]",
      "show the summarisation request /compact would send for the session (-c or -r) and the history after it",
    )
    .option("-c, --continue", "look at the most recent session in this folder")
    .option("-r, --resume <session>", "look at this session (an id or a .jsonl file)")
    .action(async (words: string[], opts) => {
      if (words.length === 0 && opts.compact === undefined) {
        io.stderr.write("mitsu inspect: give a prompt (or --compact with -c or -r)\n");
        ctx.exitCode = 1;
        return;
      }
      const { inspectCommand } = await import("./inspect-command.js");
      ctx.exitCode = await inspectCommand(
        {
          prompt: words.join(" "),
          ...(opts.agent ? { agent: opts.agent } : {}),
          model: opts.model ?? ctx.program.opts().model,
          provider: opts.provider,
          maxTokens: opts.maxTokens,
          toolProtocol: opts.toolProtocol,
          json: opts.json === true,
          addDirs: opts.addDir ?? [],
          ...(opts.compact !== undefined ? { compact: opts.compact as string | true } : {}),
          ...(opts.resume ? { resume: opts.resume as string } : {}),
          continueSession: opts.continue === true,
        },
        io,
      );
    });
}
