import { type Command, InvalidArgumentError, Option } from "commander";
import {
  type CliOptions,
  DEFAULT_THINKING_BUDGET,
  INPUT_FORMATS,
  looksLikeToolRule,
  OUTPUT_FORMATS,
  splitToolRules,
} from "../cli-options.js";
import { addSdkOptions, sdkFlagsFrom, thinkingBudgetOf } from "../sdk/sdk-options.js";
import {
  type CommandContext,
  claudeMode,
  collect,
  MODEL_HELP,
  PERMISSION_MODE_CHOICES,
  positiveInt,
} from "./command-context.js";

/** `--thinking` alone or with a budget of at least 1024 tokens. */
function thinkingOption(value: unknown): { thinkingBudget?: number } {
  if (value === undefined || value === "disabled") return {};
  // The Claude Agent SDK's `--thinking=adaptive`: mitsu's default budget.
  if (value === true || value === "adaptive") return { thinkingBudget: DEFAULT_THINKING_BUDGET };
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024)
    throw new InvalidArgumentError("--thinking takes a budget of at least 1024 tokens");
  return { thinkingBudget: n };
}

/**
 * `mitsu [prompt]`, the command itself: at a terminal the conversation (the TUI), otherwise print mode (text,
 * json, stream-json) or stream-json input. Its options are the program's own.
 */
export function registerPrompt(ctx: CommandContext): void {
  // Words after `--allowedTools`/`--disallowedTools` that are not rules: they are the prompt (see looksLikeToolRule).
  const spilled: string[] = [];
  const rules = (value: string, previous: string[] = []) => {
    if (spilled.length > 0 || !splitToolRules([value]).every(looksLikeToolRule)) {
      spilled.push(value);
      return previous;
    }
    return [...previous, value];
  };
  // The Claude Agent SDK's flags (src/cli/sdk) are the program's own too.
  addSdkOptions(promptOptions(ctx.program, rules)).action(async (words: string[], opts) => {
    ctx.exitCode = await runPrompt(ctx, [...spilled, ...words], opts);
  });
}

/** The program's own options (mitsu's flags, as Claude Code's where they share a name). */
function promptOptions(program: Command, rules: (value: string, previous?: string[]) => string[]): Command {
  return (
    program
      .option(
        "-p, --print",
        "print mode: answer the prompt, stream the work, then exit (without it, at a terminal: interactive)",
      )
      .option("--model <provider:model>", MODEL_HELP)
      .option("--max-turns <n>", "the most model calls for this prompt", positiveInt, 50)
      .option("--max-tokens <n>", "max_tokens for each model call", positiveInt)
      .addOption(
        new Option(
          "--output-format <format>",
          "text; json and stream-json as Claude Code prints them; mitsu-events: mitsu's own event stream",
        )
          .choices(OUTPUT_FORMATS)
          .default("text"),
      )
      .addOption(
        new Option(
          "--input-format <format>",
          "stream-json: user messages as JSON lines on standard input (Claude Code's shape)",
        )
          .choices(INPUT_FORMATS)
          .default("text"),
      )
      .addOption(
        // No declared default: a mode given here must beat settings' defaultMode, and an absent one must not.
        new Option(
          "--permission-mode <mode>",
          'what tools may do without asking (default: permissions.defaultMode of trusted settings, else "default")',
        ).choices(PERMISSION_MODE_CHOICES),
      )
      .option("--trust", "trust this folder for this run: its own settings and skills may grant permissions")
      .option(
        "--allowedTools, --allowed-tools <rules...>",
        'permission rules to allow, e.g. "Bash(npm test:*)" Edit (space- or comma-separated; a word that is not a rule starts the prompt)',
        rules,
      )
      .option(
        "--disallowedTools, --disallowed-tools <rules...>",
        "permission rules to deny (as --allowedTools); a whole tool named here is removed from the tools sent",
        rules,
      )
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
      .option(
        "-r, --resume [session]",
        "continue a session: its id (or first 8 characters) or its .jsonl file; alone, pick one of this folder's",
      )
      .option(
        "--fork-session",
        "with -r or -c: continue in a new session file, leaving the old one untouched",
      )
      .option(
        "--thinking [budget]",
        `extended thinking where the model has it, with this budget in tokens (default ${DEFAULT_THINKING_BUDGET})`,
      )
      .option("--hide-thinking", "show a one-line marker instead of the model's thinking")
      .option("--no-session-log", "do not write the session transcript")
      .option(
        "--verbose",
        "print token usage after each model call and for the session, and the session file",
      )
      .option(
        "--sandbox",
        "run Bash commands in a sandbox (Linux, bubblewrap): the workspace writable, the rest read-only, no network",
      )
      .option("--mcp-config <file>", "MCP servers from this file or JSON string (repeatable)", collect)
      .option(
        "--strict-mcp-config",
        "use only the --mcp-config servers (not .mcp.json nor ~/.mitsu/mcp.json)",
      )
      .option("--plugin-dir <dir>", "load the plugin in this folder for this run (repeatable)", collect)
      .option("--init", "run the Setup hooks (trigger init), then start")
      .option("--init-only", "run the Setup hooks (trigger init) and exit")
      .option("--maintenance", "run the Setup hooks (trigger maintenance), then start")
      // `mitsu acp [options]` arrives here as `[options] --acp` (see main's parse): the options are this command's.
      .addOption(new Option("--acp").hideHelp())
  );
}

// biome-ignore lint/suspicious/noExplicitAny: commander's parsed options.
async function runPrompt(ctx: CommandContext, words: string[], opts: any): Promise<number> {
  const { io } = ctx;
  const { readStdin } = await import("../print/read-stdin.js");
  const streamInput = opts.inputFormat === "stream-json";
  const stdin = io.stdin && !streamInput && !opts.acp ? await readStdin(io.stdin) : undefined;
  const argPrompt = words.join(" ").trim();
  const prompt = [argPrompt, stdin?.trim()].filter((s) => s).join("\n\n") || undefined;
  const options: CliOptions = {
    prompt,
    print: opts.print === true,
    model: opts.model,
    maxTurns: opts.maxTurns,
    maxTokens: opts.maxTokens,
    outputFormat: opts.outputFormat,
    inputFormat: opts.inputFormat,
    permissionMode: claudeMode(opts.permissionMode, io),
    trust: opts.trust === true,
    allowedTools: splitToolRules(opts.allowedTools ?? []),
    disallowedTools: splitToolRules(opts.disallowedTools ?? []),
    addDirs: opts.addDir ?? [],
    dumpRequests: opts.dumpRequests,
    toolProtocol: opts.toolProtocol,
    appendSystemPrompt: opts.appendSystemPrompt,
    cacheTtl: opts.cacheTtl,
    continueSession: opts.continue === true,
    resume: typeof opts.resume === "string" ? opts.resume : undefined,
    pickSession: opts.resume === true,
    forkSession: opts.forkSession === true,
    ...thinkingOption(opts.thinking),
    hideThinking: opts.hideThinking === true,
    noSessionLog: opts.sessionLog === false,
    verbose: opts.verbose === true,
    sandbox: opts.sandbox === true,
    mcpConfig: opts.mcpConfig ?? [],
    strictMcpConfig: opts.strictMcpConfig === true,
    ...(opts.pluginDir ? { pluginDirs: opts.pluginDir as string[] } : {}),
    ...(opts.init || opts.initOnly ? { setupTrigger: "init" as const } : {}),
    ...(opts.maintenance ? { setupTrigger: "maintenance" as const } : {}),
    ...(opts.initOnly ? { initOnly: true } : {}),
    sdk: sdkFlagsFrom(opts),
  };
  const sdkThinking = thinkingBudgetOf(opts);
  if (sdkThinking !== undefined) options.thinkingBudget = sdkThinking;
  if (options.sdk?.thinkingOff) delete options.thinkingBudget;
  if (options.sdk?.noSessionPersistence) options.noSessionLog = true;
  if (options.initOnly) {
    const { initOnlyMode } = await import("../print/init-only-mode.js");
    return initOnlyMode(options, io);
  }
  if (opts.acp === true) {
    const { acpCommand } = await import("../acp/acp-command.js");
    return acpCommand(options, io);
  }
  // A terminal on stdin, no -p and text output: the conversation at the prompt. Otherwise (a pipe, -p,
  // JSON output for a script): print mode.
  if (!options.print && options.outputFormat === "text" && !streamInput && io.stdin?.isTTY === true) {
    const { interactiveMode } = await import("../tui/interactive-mode.js");
    return interactiveMode(options, { ...io, stdin: io.stdin });
  } else if (streamInput && options.outputFormat === "stream-json") {
    // Claude Code's SDK protocol: control requests beside the user messages (the Claude Agent SDK).
    const { sdkMode } = await import("../sdk/sdk-mode.js");
    return sdkMode(options, io);
  } else if (streamInput) {
    const { streamInputMode } = await import("../print/stream-input-mode.js");
    return streamInputMode(options, io);
  } else {
    const { printMode } = await import("../print/print-mode.js");
    return printMode(options, io);
  }
}
