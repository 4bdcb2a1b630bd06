import { Command, InvalidArgumentError, Option } from "commander";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/index.js";
import { agentsCommand } from "./agents-command.js";
import { type CliOptions, DEFAULT_MODEL, OUTPUT_FORMATS, splitToolRules } from "./cli-options.js";
import { inspectCommand } from "./inspect-command.js";
import { interactiveMode } from "./interactive-mode.js";
import { type PrintIo, printMode } from "./print-mode.js";
import { readStdin } from "./read-stdin.js";
import { skillsCommand } from "./skills-command.js";
import { stripControls } from "./terminal-text.js";
import { packageVersion } from "./version.js";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

/** A repeatable option's values; no default is declared, so `--help` does not print "(default: [])". */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Parses argv and runs the command; resolves to the process exit code. */
export async function main(argv: string[], io: PrintIo): Promise<number> {
  let exitCode = 0;
  const program = new Command("mitsu")
    .description("An agent is three JSON fields and a loop. mitsu shows you all three.")
    .version(packageVersion(), "-v, --version")
    .argument(
      "[prompt...]",
      "the prompt (also read from standard input); at a terminal without -p, the first message",
    )
    .option(
      "-p, --print",
      "print mode: answer the prompt, stream the work, then exit (without it, at a terminal: interactive)",
    )
    .option(
      "--model <provider:model>",
      "the model, e.g. anthropic:claude-sonnet-5-5, openai:gpt-5, gemini:gemini-2.5-pro",
      io.env.MITSU_MODEL || DEFAULT_MODEL,
    )
    .option("--max-turns <n>", "the most model calls for this prompt", positiveInt, 50)
    .option("--max-tokens <n>", "max_tokens for each model call", positiveInt)
    .addOption(
      new Option("--output-format <format>", "how to print the run").choices(OUTPUT_FORMATS).default("text"),
    )
    .addOption(
      // No declared default: a mode given here must beat settings' defaultMode, and an absent one must not.
      new Option(
        "--permission-mode <mode>",
        'what tools may do without asking (default: permissions.defaultMode of trusted settings, else "default")',
      ).choices(PERMISSION_MODES),
    )
    .option("--trust", "trust this folder for this run: its own settings and skills may grant permissions")
    .option(
      "--allowedTools <rules>",
      'permission rules to allow, comma- or space-separated, e.g. "Bash(npm test:*),Edit" (repeatable)',
      collect,
    )
    .option("--disallowedTools <rules>", "permission rules to deny (as --allowedTools)", collect)
    .option("--add-dir <dir>", "another folder the file tools may reach (repeatable)", collect)
    .option("--dump-requests <dir>", "write every request and response body to files in <dir>")
    .addOption(
      new Option("--tool-protocol <protocol>", "how tools reach the model")
        .choices(["native", "xml"])
        .default("native"),
    )
    .option("--append-system-prompt <text>", "text added to the end of the system prompt")
    .addOption(
      new Option("--cache-ttl <ttl>", "prompt-cache lifetime of the breakpoints")
        .choices(["5m", "1h"])
        .default("5m"),
    )
    .option("-c, --continue", "continue the most recent session in this folder")
    .option("-r, --resume <file>", "continue the session in this .jsonl file")
    .option("--no-session-log", "do not write the session transcript")
    .option("--verbose", "print token usage after each model call and for the session, and the session file")
    .action(async (words: string[], opts) => {
      const stdin = io.stdin ? await readStdin(io.stdin) : undefined;
      const argPrompt = words.join(" ").trim();
      const prompt = [argPrompt, stdin?.trim()].filter((s) => s).join("\n\n") || undefined;
      const options: CliOptions = {
        prompt,
        print: opts.print === true,
        model: opts.model,
        maxTurns: opts.maxTurns,
        maxTokens: opts.maxTokens,
        outputFormat: opts.outputFormat,
        permissionMode: opts.permissionMode as PermissionMode | undefined,
        trust: opts.trust === true,
        allowedTools: splitToolRules(opts.allowedTools ?? []),
        disallowedTools: splitToolRules(opts.disallowedTools ?? []),
        addDirs: opts.addDir ?? [],
        dumpRequests: opts.dumpRequests,
        toolProtocol: opts.toolProtocol,
        appendSystemPrompt: opts.appendSystemPrompt,
        cacheTtl: opts.cacheTtl,
        continueSession: opts.continue === true,
        resume: opts.resume,
        noSessionLog: opts.sessionLog === false,
        verbose: opts.verbose === true,
      };
      // A terminal on stdin, no -p and text output: the conversation at the prompt. Otherwise (a pipe, -p,
      // JSON output for a script): print mode.
      exitCode =
        !options.print && options.outputFormat === "text" && io.stdin?.isTTY === true
          ? await interactiveMode(options, { ...io, stdin: io.stdin })
          : await printMode(options, io);
    });

  program
    .command("inspect")
    .description("show the exact request mitsu would send for a prompt in this workspace (sends nothing)")
    .argument("<prompt...>", "the prompt")
    .option("--model <provider:model>", "the model", io.env.MITSU_MODEL || DEFAULT_MODEL)
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
    .action(async (words: string[], opts) => {
      exitCode = await inspectCommand(
        {
          prompt: words.join(" "),
          ...(opts.agent ? { agent: opts.agent } : {}),
          model: opts.model,
          provider: opts.provider,
          maxTokens: opts.maxTokens,
          toolProtocol: opts.toolProtocol,
          json: opts.json === true,
          addDirs: opts.addDir ?? [],
        },
        io,
      );
    });

  program
    .command("agents")
    .description("list the sub-agent types (name, source, tools, model) and agent files that were skipped")
    .action(async () => {
      exitCode = await agentsCommand(io);
    });

  program
    .command("skills")
    .description("list the skills and commands found, where from, and files that were skipped")
    .action(async () => {
      exitCode = await skillsCommand(io);
    });

  // Options after a subcommand's name belong to the subcommand (`mitsu inspect --model …`).
  program.enablePositionalOptions();
  program.exitOverride();
  program.configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
  });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    const code = (error as { exitCode?: number; code?: string }).exitCode;
    if (typeof code === "number") return code;
    io.stderr.write(`mitsu: ${stripControls(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
  return exitCode;
}
