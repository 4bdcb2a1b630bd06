import { Command } from "commander";
import type { PrintIo } from "./cli-io.js";
import { registerAcp } from "./commands/acp.js";
import { registerAgents } from "./commands/agents.js";
import type { CommandContext } from "./commands/command-context.js";
import { registerDemo } from "./commands/demo.js";
import { registerInspect } from "./commands/inspect.js";
import { registerMcp } from "./commands/mcp.js";
import { registerPlugin } from "./commands/plugin.js";
import { registerPrompt } from "./commands/prompt.js";
import { registerRemote } from "./commands/remote.js";
import { registerSkills } from "./commands/skills.js";
import { registerWorker } from "./commands/worker.js";
import { stripControls, terminalJson } from "./render/terminal-text.js";
import { failedResult } from "./sdk/failed-result.js";
import { packageVersion } from "./version.js";

/**
 * Parses argv and runs the command; resolves to the process exit code. Each command's module is loaded only
 * when that command runs: `--version` and `--help` load commander and nothing else.
 */
export async function main(argv: string[], io: PrintIo): Promise<number> {
  const program = new Command("mitsu")
    .description("An agent is three JSON fields and a loop. mitsu shows you all three.")
    .version(packageVersion(), "-v, --version")
    .argument(
      "[prompt...]",
      "the prompt (also read from standard input); at a terminal without -p, the first message",
    );
  const ctx: CommandContext = { program, io, exitCode: 0 };
  for (const register of [
    registerPrompt,
    registerInspect,
    registerAgents,
    registerSkills,
    registerPlugin,
    registerDemo,
    registerMcp,
    registerWorker,
    registerRemote,
    registerAcp,
  ]) {
    register(ctx);
  }
  program
    .command("help")
    .description("show this help")
    .action(() => {
      io.stdout.write(program.helpInformation());
    });
  return parse(program, argv, io, () => ctx.exitCode);
}

/** Runs the parsed command; a usage error is a message (JSON when the command line asked for JSON). */
async function parse(program: Command, argv: string[], io: PrintIo, exitCode: () => number): Promise<number> {
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
  // `mitsu acp [options]`: mitsu's own options (model, permissions, trust…) for every session it serves.
  const args = argv[0] === "acp" ? [...argv.slice(1), "--acp"] : argv;
  try {
    await program.parseAsync(args, { from: "user" });
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
  return exitCode();
}

/** `--output-format json` or `stream-json` anywhere in argv (read before parsing, for parse errors). */
function wantsJson(argv: readonly string[]): boolean {
  return argv.some(
    (arg, i) =>
      (arg === "--output-format" && /^(json|stream-json)$/.test(argv[i + 1] ?? "")) ||
      /^--output-format=(json|stream-json)$/.test(arg),
  );
}

/** A run that never started, as Claude Code's result message says so (`result` too: scripts read the reason there). */
export function errorResult(message: string) {
  return { ...failedResult(message), result: message };
}
