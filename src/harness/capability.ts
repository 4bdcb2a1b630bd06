import type { ReminderSource } from "../context/index.js";
import type { HookCallbacks } from "../hooks/index.js";
import type { Tool } from "../loop/tool.js";
import type { ContentBlock } from "../messages/index.js";
import { emptyContributions, mergeContributions, type PluginContributions } from "../plugins/load-plugins.js";

/** What a capability's start-up work is given. */
export interface CapabilityStart {
  /** The workspace. */
  cwd: string;
  /** The folder `~/.mitsu` is under. */
  home: string;
  /** The environment for child processes: the user's, without the configured keys. */
  env: NodeJS.ProcessEnv;
  /** Whether the workspace's own files may grant anything (workspace trust). */
  trusted: boolean;
  /** A notice for the user. */
  warn(message: string): void;
}

/** A slash command a capability adds: `/name args` expands into a prompt, without a model call. */
export interface CapabilityCommand {
  name: string;
  description?: string;
  /** The prompt the command stands for; a throw is a message for the user. */
  expand(args: string, signal?: AbortSignal): string | Promise<string>;
}

/** One prompt as a capability's per-prompt work sees it. */
export interface CapabilityPrompt {
  text: string | ContentBlock[];
  signal: AbortSignal;
}

/**
 * A feature of the coding agent, and what it contributes — the one seam through which the built-in features
 * and an embedder's own (`createCodingAgent({ capabilities })`) plug into the harness. Every member is optional.
 *
 * The prompt cache holds only while `system` and `tools` stay byte-identical, so a capability contributes to
 * them at start-up only, in the list's order: its `start`s run concurrently and are all awaited before the
 * agent is handed out (so before its first request); then `tools` is read once, and `reminders` are added to
 * the context after the built-in sources. What varies per prompt goes into the messages, as reminders.
 */
export interface Capability {
  /** Names the capability in warnings. */
  readonly name: string;
  /**
   * What the harness's own loaders take in beside the user's and the project's files, in the shape a Claude Code
   * plugin holds them: skill and command folders (named `<plugin>:<name>`), agent folders, output styles, command
   * hooks, MCP servers. A plugin is a capability with only these (see `pluginCapability`). Read once, before the
   * workspace's files are loaded, so the skills and agents are in the system prompt and the MCP tools in `tools`
   * from the first request, in the list's order. Hooks and servers given here run without a question: whoever
   * made the capability approved them (installing a plugin is that approval).
   */
  readonly contributes?: Partial<PluginContributions>;
  /** Start-up work (connect, check, load); a throw stops `createCodingAgent`, which closes what started. */
  start?(start: CapabilityStart): void | Promise<void>;
  /**
   * The capability's tools, after the built-in ones, in the capabilities' order; read after `start`. A tool of
   * a built-in's name takes that tool's place.
   */
  tools?: readonly Tool<never>[] | (() => readonly Tool<never>[]);
  /**
   * Between prompts only: the reason when `tools` now returns another list (an MCP server's `list_changed`).
   * The harness takes the new list in at the start of the next prompt and tells the prefix diagnostics why.
   */
  toolsChanged?(): string | undefined;
  /** `<system-reminder>` sources, asked each turn after the built-in ones. */
  reminders?: readonly ReminderSource[];
  /** Slash commands (the skills' and the MCP prompts' come first). */
  commands?: readonly CapabilityCommand[] | (() => readonly CapabilityCommand[]);
  /** Hook callbacks, beside the settings' hooks and `CodingAgentOptions.hooks`. */
  hooks?: HookCallbacks;
  /**
   * Permission rules, with the weight of the command line's `--allowedTools` / `--disallowedTools` (code the
   * embedder chose to run is not a repository's file). A deny rule wins over every allow.
   */
  permissions?: { allow?: readonly string[]; deny?: readonly string[] };
  /**
   * Per-prompt work, before a prompt reaches the model: each text it returns is added to the prompt as
   * `<system-reminder>` context, as a UserPromptSubmit hook's `additionalContext` is.
   */
  beforePrompt?(
    prompt: CapabilityPrompt,
  ): undefined | readonly string[] | Promise<undefined | readonly string[]>;
  /** Ends what the capability started; called once, by `CodingAgent.close` (also after a failed start). */
  close?(): void | Promise<void>;
}

/** The tools a capability gives now. */
export function toolsOf(capability: Capability): readonly Tool<never>[] {
  const { tools } = capability;
  return typeof tools === "function" ? tools() : (tools ?? []);
}

/** The commands a capability gives now. */
export function commandsOf(capability: Capability): readonly CapabilityCommand[] {
  const { commands } = capability;
  return typeof commands === "function" ? commands() : (commands ?? []);
}

/** What the capabilities contribute to the loaders (see `Capability.contributes`), merged in their order. */
export function contributionsOf(capabilities: readonly Capability[]): PluginContributions {
  const merged = emptyContributions();
  for (const { contributes } of capabilities) {
    if (contributes) mergeContributions(merged, { ...emptyContributions(), ...contributes });
  }
  return merged;
}
