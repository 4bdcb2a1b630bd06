import { formatAgentsReport } from "../agents/index.js";
import type { CodingAgent } from "../harness/index.js";
import type { Usage } from "../messages/index.js";
import { formatSlashHelp } from "../skills/index.js";
import { formatHooks } from "./hooks-command.js";
import type { Style } from "./style.js";
import { stripControls } from "./terminal-text.js";

/** The slash commands interactive mode answers itself, before the discovered commands and skills. */
export const BUILTIN_COMMANDS: ReadonlyArray<readonly [name: string, description: string]> = [
  ["agents", "the sub-agent types the Task tool offers, and agent files skipped"],
  [
    "clear",
    "clear the screen and start a new conversation (and session log); permissions allowed always stay",
  ],
  ["cost", "tokens used so far in this session"],
  ["exit", "leave mitsu (also Ctrl-D, or Ctrl-C twice at an empty prompt)"],
  ["help", "this list"],
  ["hooks", "the hooks that run (source file, event, matcher, command), and those not approved"],
];

export interface BuiltinContext {
  agent: CodingAgent;
  style: Style;
  write: (text: string) => void;
  /** Usage summed over every run of this process. */
  usage: () => Usage;
  /** Starts a new transcript and session log. */
  clear: () => Promise<void>;
  /** Clears the terminal (absent when the output is not a terminal). */
  clearScreen?: () => void;
}

/**
 * Runs `/name` when it is a built-in: "exit" asks the caller to leave, "done" means it was handled, and
 * undefined means it is not a built-in (a discovered command or skill may have the name).
 */
export async function runBuiltinCommand(
  name: string,
  context: BuiltinContext,
): Promise<"exit" | "done" | undefined> {
  const { style, write } = context;
  switch (name) {
    case "exit":
      return "exit";
    case "help":
      write(`${builtinHelp(context.agent, style)}\n`);
      return "done";
    case "hooks":
      write(`${formatHooks(context.agent, style)}\n`);
      return "done";
    case "agents":
      write(
        `${formatAgentsReport(context.agent.agents, { toolNames: context.agent.tools.map((t) => t.name) })}\n`,
      );
      return "done";
    case "clear":
      await context.clear();
      context.clearScreen?.();
      write(style.dim("(a new conversation)\n"));
      return "done";
    case "cost": {
      const u = context.usage();
      write(
        `tokens so far: ${u.input_tokens} in, ${u.output_tokens} out, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write\n`,
      );
      return "done";
    }
    default:
      return undefined;
  }
}

/** `/help`: the built-ins, then the discovered commands and skills. */
export function builtinHelp(agent: CodingAgent, style: Style): string {
  const width = Math.max(...BUILTIN_COMMANDS.map(([name]) => name.length + 1));
  const builtins = BUILTIN_COMMANDS.map(([name, text]) => `  ${`/${name}`.padEnd(width)}  ${text}`);
  return [
    style.bold("Built-in commands"),
    ...builtins,
    "",
    style.bold("Commands and skills"),
    stripControls(formatSlashHelp(agent.skills)),
  ].join("\n");
}
