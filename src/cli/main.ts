import { Command, InvalidArgumentError, Option } from "commander";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/permission-mode.js";
import {
  type CliOptions,
  DEFAULT_THINKING_BUDGET,
  INPUT_FORMATS,
  looksLikeToolRule,
  OUTPUT_FORMATS,
  splitToolRules,
} from "./cli-options.js";
import type { PrintIo } from "./print-mode.js";
import { stripControls, terminalJson } from "./terminal-text.js";
import { packageVersion } from "./version.js";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

/** `--thinking` alone or with a budget of at least 1024 tokens. */
function thinkingOption(value: unknown): { thinkingBudget?: number } {
  if (value === undefined) return {};
  if (value === true) return { thinkingBudget: DEFAULT_THINKING_BUDGET };
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024)
    throw new InvalidArgumentError("--thinking takes a budget of at least 1024 tokens");
  return { thinkingBudget: n };
}

/** A repeatable option's values; no default is declared, so `--help` does not print "(default: [])". */
const collect = (value: string, previous: string[] = []) => [...previous, value];

const MODEL_HELP =
  "the model, e.g. anthropic:claude-sonnet-5-5, openai:gpt-5, gemini:gemini-2.5-pro (default: MITSU_MODEL, ANTHROPIC_MODEL, the settings' model, anthropic:claude-sonnet-5-5)";

/**
 * Parses argv and runs the command; resolves to the process exit code. Each command's module is loaded only
 * when that command runs: `--version` and `--help` load commander and nothing else.
 */
export async function main(argv: string[], io: PrintIo): Promise<number> {
  let exitCode = 0;
  // Words after `--allowedTools`/`--disallowedTools` that are not rules: they are the prompt (see looksLikeToolRule).
  const spilled: string[] = [];
  const rules = (value: string, previous: string[] = []) => {
    if (spilled.length > 0 || !splitToolRules([value]).every(looksLikeToolRule)) {
      spilled.push(value);
      return previous;
    }
    return [...previous, value];
  };
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
      ).choices(PERMISSION_MODES),
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
    .option("--fork-session", "with -r or -c: continue in a new session file, leaving the old one untouched")
    .option(
      "--thinking [budget]",
      `extended thinking where the model has it, with this budget in tokens (default ${DEFAULT_THINKING_BUDGET})`,
    )
    .option("--hide-thinking", "show a one-line marker instead of the model's thinking")
    .option("--no-session-log", "do not write the session transcript")
    .option("--verbose", "print token usage after each model call and for the session, and the session file")
    .option(
      "--sandbox",
      "run Bash commands in a sandbox (Linux, bubblewrap): the workspace writable, the rest read-only, no network",
    )
    .option("--mcp-config <file>", "MCP servers from this file or JSON string (repeatable)", collect)
    .option("--strict-mcp-config", "use only the --mcp-config servers (not .mcp.json nor ~/.mitsu/mcp.json)")
    .action(async (words: string[], opts) => {
      const { readStdin } = await import("./read-stdin.js");
      const streamInput = opts.inputFormat === "stream-json";
      const stdin = io.stdin && !streamInput ? await readStdin(io.stdin) : undefined;
      const argPrompt = [...spilled, ...words].join(" ").trim();
      const prompt = [argPrompt, stdin?.trim()].filter((s) => s).join("\n\n") || undefined;
      const options: CliOptions = {
        prompt,
        print: opts.print === true,
        model: opts.model,
        maxTurns: opts.maxTurns,
        maxTokens: opts.maxTokens,
        outputFormat: opts.outputFormat,
        inputFormat: opts.inputFormat,
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
      };
      // A terminal on stdin, no -p and text output: the conversation at the prompt. Otherwise (a pipe, -p,
      // JSON output for a script): print mode.
      if (!options.print && options.outputFormat === "text" && !streamInput && io.stdin?.isTTY === true) {
        const { interactiveMode } = await import("./interactive-mode.js");
        exitCode = await interactiveMode(options, { ...io, stdin: io.stdin });
      } else if (streamInput) {
        const { streamInputMode } = await import("./stream-input-mode.js");
        exitCode = await streamInputMode(options, io);
      } else {
        const { printMode } = await import("./print-mode.js");
        exitCode = await printMode(options, io);
      }
    });

  program
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
        exitCode = 1;
        return;
      }
      const { inspectCommand } = await import("./inspect-command.js");
      exitCode = await inspectCommand(
        {
          prompt: words.join(" "),
          ...(opts.agent ? { agent: opts.agent } : {}),
          model: opts.model ?? program.opts().model,
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

  program
    .command("agents")
    .description("list the sub-agent types (name, source, tools, model) and agent files that were skipped")
    .action(async () => {
      const { agentsCommand } = await import("./agents-command.js");
      exitCode = await agentsCommand(io);
    });

  program
    .command("skills")
    .description("list the skills and commands found, where from, and files that were skipped")
    .action(async () => {
      const { skillsCommand } = await import("./skills-command.js");
      exitCode = await skillsCommand(io);
    });

  program
    .command("demo")
    .description(
      "watch mitsu fix a sample project against its own simulator (a scripted model; no key, no network)",
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_options: unknown, command: Command) => {
      // The demo is a script of its own (also `npm run demo`), run as a child so that it may drive `main`
      // without the two modules importing each other.
      const { spawn } = await import("node:child_process");
      const { fileURLToPath } = await import("node:url");
      const script = fileURLToPath(new URL("./demo.js", import.meta.url));
      const child = spawn(process.execPath, [script, ...command.args], { stdio: "inherit" });
      exitCode = await new Promise<number>((done) => {
        child.on("error", () => done(1));
        child.on("close", (code, signal) => done(code ?? (signal ? 130 : 1)));
      });
    });

  const mcp = program
    .command("mcp")
    .description("the MCP servers: list, add, remove, approve, deny, login, logout");
  mcp
    .command("list")
    .description("each configured server: transport, scope, state, tool count, and why one failed")
    .option("--mcp-config <file>", "also these servers (repeatable)", collect)
    .option("--strict-mcp-config", "only the --mcp-config servers")
    .action(async (opts) => {
      const { mcpListCommand } = await import("./mcp-command.js");
      exitCode = await mcpListCommand(io, {
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
      exitCode = await mcpAddCommand(io, name, rest, {
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
      exitCode = await mcpRemoveCommand(io, name, opts.scope);
    });
  mcp
    .command("login")
    .description("log in to a remote server that asks for OAuth (opens the browser)")
    .argument("<name>")
    .action(async (name: string) => {
      const { mcpLoginCommand } = await import("./mcp-command.js");
      exitCode = await mcpLoginCommand(io, name);
    });
  mcp
    .command("logout")
    .description("forget a remote server's login")
    .argument("<name>")
    .action(async (name: string) => {
      const { mcpLogoutCommand } = await import("./mcp-command.js");
      exitCode = await mcpLogoutCommand(io, name);
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
        exitCode = await mcpApprovalCommand(io, name, decision);
      });
  }

  program
    .command("worker")
    .description(
      "serve mitsu sessions to a Restate server (durable: many sessions, many workers, crash-safe); prints how to register it",
    )
    .option("--port <port>", "the port to listen on", positiveInt, 9080)
    .option(
      "--host <host>",
      "the interface to listen on (another machine's Restate server needs e.g. 0.0.0.0, with --identity-key)",
      "127.0.0.1",
    )
    .option(
      "--workspaces <dir>",
      "the folder holding one checkout per session, <dir>/<session id> (default: here)",
    )
    .option(
      "--register <admin-url>",
      "register this worker with the Restate admin API (e.g. http://localhost:9070)",
    )
    .option("--url <url>", "the URL the Restate server reaches this worker at (default http://<host>:<port>)")
    .option("--model <model>", MODEL_HELP)
    .addOption(new Option("--permission-mode <mode>", "the permission mode").choices(PERMISSION_MODES))
    .option("--allowedTools <rules...>", "rules that allow (comma- or space-separated)")
    .option("--disallowedTools <rules...>", "rules that deny (comma- or space-separated)")
    .option("--max-turns <n>", "model calls per prompt", positiveInt)
    .option(
      "--ask-timeout <seconds>",
      "how long a permission question waits before the call is denied (default 1 day)",
      positiveInt,
    )
    .option(
      "--identity-key <key>",
      "accept only requests signed by this Restate server key (repeatable)",
      collect,
    )
    .option("--processes <n>", "worker processes sharing the port (node:cluster)", positiveInt, 1)
    .addOption(
      new Option(
        "--protocol <protocol>",
        "http1: a waiting session holds nothing, processes share one URL; http2: fewer round trips per step",
      )
        .choices(["http1", "http2"])
        .default("http1"),
    )
    .option("--verbose", "log every invocation step")
    .action(async (opts) => {
      const { workerCommand } = await import("./worker-command.js");
      exitCode = await workerCommand(
        {
          port: opts.port,
          host: opts.host,
          ...(opts.workspaces ? { workspaces: opts.workspaces as string } : {}),
          ...(opts.register ? { register: opts.register as string } : {}),
          ...(opts.url ? { url: opts.url as string } : {}),
          ...((opts.model ?? program.opts().model)
            ? { model: (opts.model ?? program.opts().model) as string }
            : {}),
          ...(opts.permissionMode ? { permissionMode: opts.permissionMode as PermissionMode } : {}),
          allowedTools: splitToolRules(opts.allowedTools ?? []),
          disallowedTools: splitToolRules(opts.disallowedTools ?? []),
          ...(opts.maxTurns ? { maxTurns: opts.maxTurns as number } : {}),
          ...(opts.askTimeout ? { askTimeoutMs: (opts.askTimeout as number) * 1000 } : {}),
          identityKeys: opts.identityKey ?? [],
          verbose: opts.verbose === true,
          processes: opts.processes as number,
          protocol: opts.protocol as "http1" | "http2",
        },
        io,
      );
    });

  program
    .command("remote")
    .description(
      "talk to durable sessions through the Restate ingress: -p sends a prompt and prints the answer; approve, deny, pending, transcript, cancel",
    )
    .argument("[action]", "approve | deny | pending | transcript | cancel (none: send the prompt of -p)")
    .requiredOption("--session <id>", "the session id")
    .option("-p, --prompt <text>", "the prompt to send")
    .option(
      "--ingress <url>",
      "the Restate ingress (default RESTATE_INGRESS_URL, else http://localhost:8080)",
    )
    .option("--object <name>", "the session object's name (an embedder's own; default mitsu-session)")
    .option(
      "--admin <url>",
      "cancel: the Restate admin API (default RESTATE_ADMIN_URL, else http://localhost:9070)",
    )
    .option(
      "--workspace <dir>",
      "the session's checkout, inside the workers' workspaces folder (first prompt only)",
    )
    .option("--max-turns <n>", "model calls for this prompt", positiveInt)
    .option("--call <tool-use-id>", "approve / deny: the tool call (needed when several wait)")
    .option("--message <text>", "deny: what the model is told")
    .option("--json", "print JSON")
    .action(async (action: string | undefined, opts) => {
      const actions = ["approve", "deny", "pending", "transcript", "cancel"];
      if (action !== undefined && !actions.includes(action)) {
        io.stderr.write(
          `mitsu remote: unknown action ${JSON.stringify(action)} (use ${actions.join(", ")}, or -p)\n`,
        );
        exitCode = 1;
        return;
      }
      const { remoteCommand } = await import("./remote-command.js");
      exitCode = await remoteCommand(
        {
          action: (action ?? "prompt") as "prompt",
          session: opts.session as string,
          ingress:
            (opts.ingress as string | undefined) ?? io.env.RESTATE_INGRESS_URL ?? "http://localhost:8080",
          ...(opts.object !== undefined ? { object: opts.object as string } : {}),
          admin: (opts.admin as string | undefined) ?? io.env.RESTATE_ADMIN_URL ?? "http://localhost:9070",
          ...(opts.prompt !== undefined ? { prompt: opts.prompt as string } : {}),
          ...(opts.workspace !== undefined ? { workspace: opts.workspace as string } : {}),
          ...(opts.maxTurns ? { maxTurns: opts.maxTurns as number } : {}),
          ...(opts.call !== undefined ? { call: opts.call as string } : {}),
          ...(opts.message !== undefined ? { message: opts.message as string } : {}),
          json: opts.json === true,
        },
        io,
      );
    });

  program
    .command("help")
    .description("show this help")
    .action(() => {
      io.stdout.write(program.helpInformation());
    });

  // Options after a subcommand's name belong to the subcommand (`mitsu inspect --model …`).
  program.enablePositionalOptions();
  program.exitOverride();
  // A script that asked for JSON gets its usage errors as JSON too.
  const jsonOutput = wantsJson(argv);
  let usageError: string | undefined;
  /** Whether the parser printed its error itself (an error thrown in an action, like --thinking's, is not). */
  let errorShown = false;
  program.configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
    outputError: (s: string, write: (s: string) => void) => {
      if (jsonOutput) usageError = s.trim();
      else {
        errorShown = true;
        write(s);
      }
    },
  });
  for (const sub of program.commands) sub.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    const code = (error as { exitCode?: number; code?: string }).exitCode;
    const message = usageError ?? (error instanceof Error ? error.message : String(error));
    if (jsonOutput && !(typeof code === "number" && code === 0)) {
      io.stdout.write(`${terminalJson(errorResult(message))}\n`);
      return typeof code === "number" ? code : 1;
    }
    if (typeof code === "number" && (code === 0 || errorShown)) return code;
    io.stderr.write(`mitsu: ${stripControls(message)}\n`);
    return typeof code === "number" ? code : 1;
  }
  return exitCode;
}

/** `--output-format json` or `stream-json` anywhere in argv (read before parsing, for parse errors). */
function wantsJson(argv: readonly string[]): boolean {
  return argv.some(
    (arg, i) =>
      (arg === "--output-format" && /^(json|stream-json)$/.test(argv[i + 1] ?? "")) ||
      /^--output-format=(json|stream-json)$/.test(arg),
  );
}

/** A run that never started, as Claude Code's result object says so. */
export function errorResult(message: string) {
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    result: message,
    duration_ms: 0,
    duration_api_ms: 0,
    num_turns: 0,
    total_cost_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    permission_denials: [],
  };
}
