import { formatAgentsReport } from "../../agents/index.js";
import type { CodingAgent } from "../../harness/index.js";
import { formatSlashHelp } from "../../skills/index.js";
import { compactionNotice } from "../render/compaction-notice.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";
import { addDirCommand } from "./add-dir-command.js";
import { formatHooks } from "./hooks-command.js";
import { formatMcpStatus } from "./mcp-status-text.js";
import { contextReport, costReport } from "./session-status.js";
import { tasksCommand } from "./tasks-command.js";

/** The slash commands interactive mode answers itself, before the discovered commands and skills. */
export const BUILTIN_COMMANDS: ReadonlyArray<readonly [name: string, description: string]> = [
  [
    "add-dir",
    "add a folder to the workspace now: /add-dir <path> [--remember saves it to .mitsu/settings.local.json]",
  ],
  ["agents", "the sub-agent types the Task tool offers, and agent files skipped"],
  [
    "clear",
    "clear the screen and start a new conversation (and session log); permissions allowed always stay",
  ],
  [
    "compact",
    "summarise the conversation so far to free the context window; /compact <focus> says what to keep",
  ],
  ["context", "how full the context window is, and what each part of the next request weighs"],
  ["cost", "what this session has cost: tokens and dollars, per call and per sub-agent"],
  ["exit", "leave mitsu (also Ctrl-D, or Ctrl-C twice at an empty prompt)"],
  ["help", "this list"],
  ["hooks", "the hooks that run (source file, event, matcher, command), and those not approved"],
  ["mcp", "the MCP servers: state, tools, and why one failed"],
  ["model", "show the model, or switch to another: /model provider:model (the prompt cache starts over)"],
  ["output-style", "the output styles and the one in use; /output-style <name> sets it (next session)"],
  [
    "plugin",
    "plugins and marketplaces: /plugin list, install <p>@<m>, marketplace add <src>, … (next session)",
  ],
  ["resume", "pick one of this folder's sessions and continue it"],
  [
    "rewind",
    "go back to an earlier prompt of this conversation, and restore the files Write and Edit changed",
  ],
  ["tasks", "the sub-agents of this conversation; /tasks show|stop|send <id> [message]"],
  ["thinking", "extended thinking on or off: /thinking [budget|off]"],
];

export interface BuiltinContext {
  agent: CodingAgent;
  style: Style;
  write: (text: string) => void;
  /** Starts a new transcript and session log. */
  clear: () => Promise<void>;
  /** The signal that Ctrl-C aborts while a built-in waits on the model. */
  signal?: AbortSignal;
  /** Clears the terminal (absent when the output is not a terminal). */
  clearScreen?: () => void;
  /** Where the `/plugin` words run (`mitsu plugin`'s actions for this folder and home); absent: not offered. */
  plugin?: (words: string[]) => Promise<void>;
  /** Where `/output-style [name]` runs; absent: not offered. */
  outputStyle?: (args: string) => Promise<void>;
}

/**
 * Runs `/name` when it is a built-in: "exit" asks the caller to leave, "done" means it was handled, and
 * undefined means it is not a built-in (a discovered command or skill may have the name).
 */
export async function runBuiltinCommand(
  name: string,
  context: BuiltinContext,
  args = "",
): Promise<"exit" | "done" | undefined> {
  const { style, write } = context;
  switch (name) {
    case "exit":
      return "exit";
    case "help":
      write(`${builtinHelp(context.agent, style)}\n`);
      return "done";
    case "add-dir":
      write(`${await addDirCommand(args, context.agent.folders, style)}\n`);
      return "done";
    case "hooks":
      write(`${formatHooks(context.agent, style)}\n`);
      return "done";
    case "agents":
      write(
        `${formatAgentsReport(context.agent.agents, { toolNames: context.agent.tools.map((t) => t.name) })}\n`,
      );
      return "done";
    case "tasks":
      write(`${await tasksCommand(context.agent.backgroundAgents, args, style)}\n`);
      return "done";
    case "mcp":
      write(`${formatMcpStatus(context.agent.mcp?.status() ?? [], style)}\n`);
      return "done";
    case "clear":
      await context.clear();
      context.clearScreen?.();
      write(style.dim("(a new conversation)\n"));
      return "done";
    case "compact": {
      if (context.agent.history.length < 2) {
        write(style.dim("(nothing to compact yet)\n"));
        return "done";
      }
      write(style.dim("compacting…\n"));
      try {
        const done = await context.agent.compact(args, context.signal ? { signal: context.signal } : {});
        write(style.dim(`⟲ ${compactionNotice({ ...done, after: done.messages.length })}\n`));
      } catch (error) {
        write(style.red(`✖ ${error instanceof Error ? error.message : String(error)}\n`));
      }
      return "done";
    }
    case "cost":
      write(`${costReport(context.agent)}\n`);
      return "done";
    case "context":
      write(`${contextReport(context.agent)}\n`);
      return "done";
    case "output-style":
      if (!context.outputStyle) return undefined;
      await context.outputStyle(args);
      return "done";
    case "plugin":
    case "plugins":
      if (!context.plugin) return undefined;
      await context.plugin(args.split(/\s+/).filter(Boolean));
      return "done";
    default:
      return undefined;
  }
}

/** The keys of the interactive screen, for `/help`. */
export const KEYS_HELP: ReadonlyArray<readonly [keys: string, what: string]> = [
  ["Enter", "send (Shift-Enter, Ctrl-J or \\ then Enter: a new line)"],
  ["Esc / Ctrl-C", "stop the run; Esc takes queued prompts back to edit"],
  ["Esc Esc", "go back to an earlier prompt (/rewind), at an empty prompt"],
  ["Shift-Tab", "cycle the permission mode: default, accept edits, plan"],
  ["!command", "run a shell command yourself; its output goes with your next prompt"],
  ["↑ / ↓", "earlier prompts of this project"],
  ["Ctrl-R", "search the earlier prompts"],
  ["Tab", "complete a /command or an @file"],
  ["Ctrl-O", "show the last collapsed output whole"],
  ["Ctrl-D", "leave (at an empty prompt; also Ctrl-C twice, /exit)"],
];

/** `/help`: the built-ins, the discovered commands and skills, and the keys, in one column layout. */
export function builtinHelp(agent: CodingAgent, style: Style): string {
  const { skills, commands } = agent.skills;
  const discovered = [...skills.filter((s) => s.userInvocable), ...commands]
    .map((entry): [string, string] => [
      `/${entry.name}${entry.argumentHint ? ` ${entry.argumentHint}` : ""}`,
      (entry.description ?? "").replace(/\s+/g, " ").trim(),
    ])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const builtins = BUILTIN_COMMANDS.map(([name, text]): [string, string] => [`/${name}`, text]);
  const all = [...builtins, ...discovered, ...KEYS_HELP];
  const width = Math.min(28, Math.max(...all.map(([left]) => left.length)));
  const rows = (list: ReadonlyArray<readonly [string, string]>) =>
    list.map(([left, text]) => stripControls(`  ${left.padEnd(width)}  ${text}`).trimEnd());
  return [
    style.bold("Built-in commands"),
    ...rows(builtins),
    "",
    style.bold("Commands and skills"),
    ...(discovered.length > 0 ? rows(discovered) : [`  ${stripControls(formatSlashHelp(agent.skills))}`]),
    ...mcpPromptHelp(agent, style),
    "",
    style.bold("Keys"),
    ...rows(KEYS_HELP),
  ].join("\n");
}

/** The MCP servers' prompts, as slash commands, for `/help`. */
export function mcpPromptHelp(agent: CodingAgent, style: Style): string[] {
  const prompts = agent.mcp?.servers.prompts ?? [];
  if (prompts.length === 0) return [];
  return [
    "",
    style.bold("MCP prompts"),
    ...prompts.map((p) => stripControls(`  /${p.name}  ${p.description}`)),
  ];
}
