import type {
  AgentDefinition,
  AgentDefinitions,
  BackgroundAgents,
  SubagentSpawner,
} from "../agents/index.js";
import type { Compaction, CompactionPreview, CompactionSettings } from "../compaction/index.js";
import type { Context, SizeBreakdown } from "../context/index.js";
import type { FolderSet } from "../fs/folder-set.js";
import type { HookCallbacks, HookRunner, UnapprovedHooksFile } from "../hooks/index.js";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import type { ReplaceHistory } from "../loop/history-replacement.js";
import type { Journal } from "../loop/journal.js";
import type { Tool } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import type { McpApprovalAnswer, McpOAuthProvider, McpServerEntry, ProjectMcp } from "../mcp/index.js";
import type { McpElicit } from "../mcp/mcp-elicitation.js";
import type { ContentBlock, Message, ToolUseBlock, Usage } from "../messages/index.js";
import type {
  PermissionAnswer,
  PermissionChecker,
  PermissionMode,
  PermissionRequest,
  PermissionVerdict,
} from "../permissions/index.js";
import type { PluginApproval } from "../plugins/load-plugins.js";
import type { ModelPrice } from "../providers/model-prices.js";
import type { ModelRequest, Provider } from "../providers/provider.js";
import type { DiscoverResult, InlineCapabilities, InlineRun } from "../skills/index.js";
import type { BackgroundShells } from "../tools/background-shells.js";
import type { CommandTerminal, FileAccess } from "../tools/file-access.js";
import type { SandboxOptions } from "../tools/sandbox.js";
import type { Workspace } from "../tools/workspace.js";
import type { Asker } from "./asker.js";
import type { Capability } from "./capability.js";
import type { ModelChoice } from "./model-choice.js";
import type { RewindFile, RewindPoint, RewindResult } from "./rewind-points.js";

import type { TrustQuestion } from "./workspace-trust.js";

/** How the agent keeps its conversation on disk. */
export interface SessionOptions {
  /** Continue this session: its file, or its id (whole, or the first 8+ characters; see `findSession`). */
  resume?: string;
  /** Continue the newest session of this workspace (a warning, and a new session, when there is none). */
  continue?: boolean;
  /**
   * Write the session log (default true). With `false`, a resumed session is only read (nothing is appended:
   * `mitsu inspect -r`); otherwise a resumed session is appended to.
   */
  log?: boolean;
  /** Where new session files go; default `~/.mitsu/projects/<workspace>/sessions` (see `sessionsDir`). */
  dir?: string;
  /** The id of a new session (its file's header id, `sessionId`); default a random UUID. */
  id?: string;
  /**
   * With `resume` or `continue`: continue in a new session file holding a copy of the history
   * (`--fork-session`); the original file is left untouched.
   */
  fork?: boolean;
}

/** Everything `createCodingAgent` needs; only `cwd` is required. */
export interface CodingAgentOptions {
  /** The workspace: the file tools' root, the permission rules' root, where settings and skills are found. */
  cwd: string;
  /** The folder `~/.mitsu` is under; default `os.homedir()`. */
  home?: string;
  /** Where keys, base URLs and the shell's environment come from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * `provider:model-id`, e.g. `anthropic:claude-sonnet-5-5` (see the model registry). Default: `MITSU_MODEL`,
   * then `ANTHROPIC_MODEL` (from `env` or the settings' `env`), then the settings' `model`, then `DEFAULT_MODEL`.
   */
  model?: string;
  /**
   * The permission mode; when given it wins over every settings file (the command line always wins). When
   * absent: the most specific trusted settings file's `defaultMode`, else "default".
   */
  permissionMode?: PermissionMode | undefined;
  /** Trust the workspace for this agent: its own settings and skills may grant permissions (`--trust`). */
  trust?: boolean;
  /**
   * Asked once at start-up when the workspace is not trusted and its own files would grant something (the
   * terminal's "Do you trust the files in this folder?"); a yes is remembered. Without it, such grants are
   * ignored and `onWarning` names them.
   */
  askTrust?: (question: TrustQuestion) => Promise<boolean>;
  /** Rules that allow (`--allowedTools`). */
  allowedTools?: string[];
  /** Rules that deny (`--disallowedTools`). */
  disallowedTools?: string[];
  /** More workspace folders (`--add-dir`). */
  addDirs?: string[];
  /** `xml`: tools are described in the system prompt and called with tags (models without function calling). */
  toolProtocol?: "native" | "xml";
  /** Text appended to the system prompt as its own block. */
  appendSystemPrompt?: string;
  /**
   * The system prompt instead of the one mitsu builds (the Claude Agent SDK's `systemPrompt`); a resumed
   * session keeps the one it was sent with. `appendSystemPrompt` still follows it.
   */
  systemPrompt?: string;
  /** Only the settings files of these levels are read (the Claude Agent SDK's `settingSources`); default all. */
  settingSources?: Array<"user" | "project" | "local">;
  cacheTtl?: "5m" | "1h";
  /**
   * Run Bash commands inside the bubblewrap sandbox (`--sandbox`); the settings' `sandbox.enabled` also turns it
   * on. Checked at start: without a working bubblewrap `createCodingAgent` throws (never a silent fallback).
   */
  sandbox?: boolean;
  /**
   * Asks the user about a call no rule decides; without it such a call is denied (print mode). `deny_and_stop`
   * refuses the call and ends the prompt's run with reason `denied` (no further model call): the user's next
   * prompt says what to do instead.
   */
  ask?: (request: PermissionRequest) => Promise<PermissionAnswer | PermissionVerdict>;
  /** Notices for the user that are not events of a run (a skipped skill file, a cut session line). */
  onWarning?: (message: string) => void;
  /** The HTTP transport of every provider (a test's, a proxy's). Default `fetch`. */
  fetch?: typeof fetch;
  /** Write every request and response body to files in this folder (`--dump-requests`); secrets redacted. */
  dumpRequests?: string;
  session?: SessionOptions;
  /** Model calls per prompt; default 50. */
  maxTurns?: number;
  /**
   * Extended thinking: its budget in tokens (Anthropic's `budget_tokens`; the other adapters map it to their
   * reasoning setting). Off by default. max_tokens is raised above the budget when needed.
   */
  thinkingBudget?: number;
  /** max_tokens per call; default the model's output limit, at most 32,000. */
  maxTokens?: number;
  /** More tools, after the built-in ones (and before none: the order is the cache prefix). */
  tools?: Tool<never>[];
  /**
   * Only these of mitsu's own tools (Claude Code's `--tools`): the others are disallowed as a whole, as
   * `disallowedTools` would. MCP servers' tools, `tools` and ToolSearch are not affected. Default: all.
   */
  builtinTools?: readonly string[];
  /** Wraps every model and tool call of every run (durable runs, replay); see `Journal`. */
  journal?: Journal;
  /**
   * The history-replacement step; see `ReplaceHistory`. Default: the built-in compaction (see `compaction`).
   * An embedder's own step replaces the automatic compaction; `compact()` still works.
   */
  replaceHistory?: ReplaceHistory;
  /**
   * Compaction: automatic when the next request would pass a threshold of the model's context window, and on
   * demand (`compact()`). Default on with thresholds sized from the model's limits; `false` turns the
   * automatic step off (`compact()` still works).
   */
  compaction?: CompactionSettings | false;
  /**
   * How deep sub-agents may nest: 1 (default) means a sub-agent cannot start its own; 2 gives sub-agents the
   * Task tool too, and so on.
   */
  maxAgentDepth?: number;
  /**
   * The MCP servers: the user's (`~/.mitsu/mcp.json`), the project's `.mcp.json` (only those approved) and
   * `configFiles` (`--mcp-config`); `strict`: only those. `approve` asks about a project server nobody decided on
   * (without it such a server is skipped); `oauth` logs in to remote servers that ask (default: no person to log
   * in, so such a server is `needs-auth`). `false`: no MCP servers at all.
   */
  mcp?:
    | {
        configFiles?: string[];
        strict?: boolean;
        approve?: (entry: McpServerEntry) => Promise<McpApprovalAnswer>;
        oauth?: (server: string, url: string) => McpOAuthProvider;
        /** Answers a server's elicitation (a question to the user mid-call); absent (print mode), declined. */
        elicit?: McpElicit;
      }
    | false;
  /**
   * The hook events as typed callbacks, beside the hooks of the settings files: each gets the event's input
   * (the JSON a command hook reads) and returns the same answer a command hook prints. See `HookCallbacks`.
   */
  hooks?: HookCallbacks;
  /**
   * Asked once for each project settings file whose hooks are not approved (as they are now); a yes is
   * remembered in `~/.mitsu/approved-hooks.json`. Without it such hooks do not run, and a warning names them.
   */
  approveHooks?: (file: UnapprovedHooksFile) => Promise<boolean>;
  /** Show a hook's plain stdout (exit 0) as a `hook-output` warning (`--verbose`). */
  verboseHooks?: boolean;
  /**
   * Fire Claude Code's `Setup` hooks with this trigger once, while the agent is made (`--init`, `--init-only`:
   * `init`; `--maintenance`: `maintenance`); their `additionalContext` goes with the first prompt.
   */
  setupHooks?: "init" | "maintenance";
  /**
   * Also warn of the notices about skill, command and agent files that did load (an unquoted value, an unknown
   * tool name left out): `--verbose`. Without it only skipped files are warned of; `mitsu skills` / `mitsu agents`
   * list everything.
   */
  verboseNotices?: boolean;
  /**
   * `--plugin-dir`: plugin folders loaded for this run (their hooks and MCP servers run: naming them approves
   * them), besides the installed and enabled ones. `plugins: false` loads no plugin at all.
   */
  pluginDirs?: string[];
  plugins?: false;
  /**
   * Asked at start-up about an installed plugin whose hooks or MCP servers changed since the user approved it (an
   * update); a yes is remembered. Without it such a plugin's hooks and servers do not run, and a warning says so.
   */
  approvePlugin?: (approval: PluginApproval) => Promise<boolean>;
  /**
   * More agent types for the Task tool, besides the built-in ones and the agent files found (a definition here
   * replaces one of the same name).
   */
  agents?: AgentDefinition[];
  /**
   * The embedder's capabilities, after the built-in ones and before the MCP servers, in this order (the order of
   * their tools is the cache prefix); see `Capability`.
   */
  capabilities?: Capability[];
  /**
   * Answers the harness's questions (permission asks, workspace trust, MCP server and hooks approval) through one
   * seam; see `Asker`. The one-function options (`ask`, `askTrust`, `mcp.approve`, `approveHooks`) answer the kinds
   * it does not.
   */
  asker?: Asker;
  /** Read, Write and Edit go through an editor's buffers (ACP `fs/*`); default the disk. See `FileAccess`. */
  files?: FileAccess;
  /** Bash runs foreground commands in an editor's terminal (ACP `terminal/*`). See `CommandTerminal`. */
  terminal?: CommandTerminal;
}

/** A denied tool call, in the shape of Claude Code's `permission_denials` entries. */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** How full the model's context window is. */
export interface ContextWindowUsage {
  /** The model's context window in tokens (from the catalog, models.json, or the default limits). */
  limit: number;
  /**
   * The input tokens of the last request of the top-level agent (fresh + cache reads + cache writes), or
   * undefined before the first answer of this conversation.
   */
  used: number | undefined;
}

/** Tokens and their price in US dollars (undefined when the model's price is unknown: a local model). */
export interface CostFigures {
  usage: Usage;
  usd: number | undefined;
}

/** What the conversation has cost so far; see `CodingAgent.cost`. */
export interface SessionCost extends CostFigures {
  /** The top-level agent's last model call: the status line's cache-hit share. */
  last?: CostFigures;
  /** Per sub-agent (its `agentPath` joined with "/"), priced at the session model's rate. */
  subagents: Record<string, CostFigures>;
  /** Model calls counted (summaries included). */
  calls: number;
}

export interface PromptOptions {
  signal?: AbortSignal;
  /** Overrides the agent's `maxTurns` for this prompt. */
  maxTurns?: number;
  /** Overrides the agent's `maxTokens` for this prompt. */
  maxTokens?: number;
  /** False when nobody shows tool input as it streams. */
  liveInput?: boolean;
  /** Another model for this prompt (a command's or skill's `model`, see `modelFor`); default the agent's. */
  model?: ModelChoice;
}

/** What a `/name args` line stands for; see `CodingAgent.expandSlash`. */
export type SlashExpansion =
  | { kind: "prompt"; text: string }
  /**
   * A command expanded by code, no model call: an MCP server's prompt (`/mcp__<server>__<prompt> args`), a
   * capability's command. Throws with a message for the user.
   */
  | { kind: "mcp-prompt"; name: string; expand: (signal?: AbortSignal) => Promise<string> }
  | { kind: "unknown"; name: string }
  /** Not a slash command at all: send the line as it is. */
  | { kind: "none" };

/**
 * The mitsu coding agent: a provider from the registry, the built-in tools and the Skill tool, the permission
 * checker, the skills, the context (system prompt, reminders, cache breakpoints) and one conversation — its
 * transcript and its session log. The terminal is one user of it; an embedder gets the same agent.
 *
 * A "session" is that conversation: what `history` holds and what the session file records. `prompt` runs
 * one user message through the loop and extends both; `clear` starts a new one; `close` ends the agent.
 */
export interface CodingAgent {
  readonly provider: Provider;
  /** The provider's name as the model spec gives it (`anthropic`, `openai`, a models.json provider). */
  readonly providerName: string;
  /** The model id sent to the provider (without the `provider:` prefix). */
  readonly model: string;
  readonly maxOutputTokens: number;
  /**
   * Built-ins, Skill, Task, the embedder's tools (`tools`, then each capability's), then the MCP tools (sorted; see
   * `connectMcpServers`). A capability's changed tool list (an MCP server's) is taken in at the start of the next
   * `prompt`, never during one.
   */
  readonly tools: readonly Tool<never>[];
  /** The MCP servers (connected, failed, skipped) and their prompts; undefined with `mcp: false`. */
  readonly mcp: ProjectMcp | undefined;
  /** The conversation's context; `clear` replaces it. */
  readonly context: Context;
  readonly permissions: PermissionChecker;
  /**
   * The permission mode in force now (the start-up one, or what Shift-Tab, ExitPlanMode or a setMode update switched
   * to since) and where the start-up mode came from (`--permission-mode`, a settings file, the default).
   */
  readonly permissionMode: { mode: PermissionMode; origin: string };
  /** Whether the workspace's own files may grant permissions (workspace trust). */
  readonly trusted: boolean;
  /** The conversation's tool state (files Read, active skills); `clear` empties it. */
  readonly toolState: ToolState;
  readonly skills: DiscoverResult;
  /**
   * The hooks: `runner.commands` lists those that run (`/hooks`), `runner.run` fires an event (a compaction
   * step calls it with "PreCompact"); `skipped` are the project files whose hooks were not approved.
   */
  readonly hooks: { runner: HookRunner; skipped: readonly UnapprovedHooksFile[] };
  /** The transcript so far (a resumed one included), as sent. */
  readonly history: readonly Message[];
  /** How many messages the conversation had when it was opened (a resumed session's). */
  readonly resumedMessages: number;
  /** The session file: undefined when the log is off, or before the first prompt of a new conversation. */
  readonly sessionPath: string | undefined;
  /** Every call the permission rules (or the user) denied in this agent's life, oldest first; a run's are the ones it added. */
  readonly permissionDenials: readonly PermissionDenial[];
  /** The session's id (its header's), as `-r` takes it; undefined exactly when `sessionPath` is. */
  readonly sessionId: string | undefined;
  /** The agent types the Task tool offers (built-in, files, `options.agents`), and the agent files skipped. */
  readonly agents: AgentDefinitions;
  /**
   * The environment for every child process the agent starts (Bash, git, hooks, MCP servers): the user's,
   * without the provider keys, the `apiKeyEnv` variables of models.json and those listed in `MITSU_SECRET_ENV`.
   */
  readonly childEnv: NodeJS.ProcessEnv;
  /** Commands the model started with Bash `run_in_background`; `close()` stops them. */
  readonly shells: BackgroundShells;
  /**
   * The sub-agents of the conversation: background ones running or finished (`onFinished` tells a front-end
   * when one ends, so an idle one can start a turn), and the kept ones `SendMessage` continues.
   */
  readonly backgroundAgents: BackgroundAgents | undefined;
  /** How Bash commands are confined, when the sandbox is on. */
  readonly sandbox: SandboxOptions | undefined;
  /** What Read may reach: the workspace folders and the read-only roots (the user's and shipped skills' folders). */
  readonly readable: Workspace;
  /**
   * The workspace folders besides the working folder, live (`--add-dir`, settings, a hook's `addDirectories`,
   * `/add-dir`): `add` and `remove` hold from the next tool call on — permission checker, file tools, sandbox. The
   * system prompt's environment section names them as they were when the session started (the cached prefix).
   */
  readonly folders: FolderSet;
  /** Whether the model takes images (an `@image.png` in a prompt). */
  readonly images: boolean;
  /**
   * The model a command's or skill's `model` names: `provider:model`, a model id (of the agent's provider unless
   * its name says another), or `haiku` / `sonnet` / `opus`; `inherit` (or nothing) is the agent's (undefined).
   * Throws a message that names the problem.
   */
  modelFor(spec: string | undefined): ModelChoice | undefined;
  /**
   * `!`command`` and `@file` for a command's or skill's text: the agent's own Bash under the permission checker,
   * and text files Read may reach.
   */
  inline(run: InlineRun): InlineCapabilities;
  /** Starts sub-agents; handed to every run as `RunAgentOptions.spawn` (a Task tool reaches it that way). */
  readonly spawn: SubagentSpawner;
  /** How full the context window is, for a status line or for compaction. */
  contextWindow(): ContextWindowUsage;
  /**
   * Compacts the conversation now (`/compact [focus]`): the model summarises it, reading the session's cached
   * prefix; the summary and the newest messages become the history, the session log records a `compaction`
   * line (the earlier lines stay), and the next request starts a new prefix epoch with the project
   * instructions and the skills list sent again. Throws when there is nothing to compact or the call fails
   * (the history is then unchanged). Not while a prompt runs.
   */
  compact(focus?: string, options?: { signal?: AbortSignal }): Promise<Compaction>;
  /** The summarisation request `compact` would send and the history that would follow; sends nothing. */
  previewCompaction(focus?: string): CompactionPreview;
  /**
   * What the session has cost: every model call of this conversation (a resumed file's earlier calls, the
   * compaction summaries and the sub-agents' calls included), priced from the catalog or models.json, cache
   * reads and writes at their own rates. It goes on across `clear` (it is what the user pays).
   */
  cost(): SessionCost;
  /**
   * The next request's three fields and what each part weighs (system blocks, each tool, reminders, each
   * message), as `mitsu inspect` shows them: `/context`.
   */
  contextBreakdown(): SizeBreakdown;
  /** The user prompts of the conversation that `rewind` can go back to, oldest first. */
  rewindPoints(): RewindPoint[];
  /**
   * Goes back to the user prompt at history index `toPromptIndex` (`/rewind`): the history is cut before it and
   * the session log records a `rewind` line (the earlier lines stay: nothing is deleted). With `restoreFiles`,
   * every file Write or Edit changed since that prompt gets its content from before back (a file they created
   * is deleted); Bash's effects are not tracked and stay. Throws for an index that is no prompt, or while a
   * prompt runs.
   */
  rewind(toPromptIndex: number, options?: { restoreFiles?: boolean }): RewindResult;
  /**
   * The files `rewind(toPromptIndex, { restoreFiles: true })` would write back or delete, each with why it would
   * not be touched (outside the workspace of this session, a symbolic link on the way, a dropped checkpoint):
   * what `/rewind` shows before it asks.
   */
  rewindPreview(toPromptIndex: number): RewindFile[];
  /** The model's price, when known. */
  readonly price: ModelPrice | undefined;
  /** The thinking budget of the next prompts (undefined: thinking off); `setThinking` changes it. */
  readonly thinkingBudget: number | undefined;
  /** Turns extended thinking on with this budget, or off (`undefined`), from the next prompt on (`/thinking`). */
  setThinking(budget: number | undefined): void;
  /** The threshold (tokens) at which the automatic compaction fires; undefined when it is off. */
  readonly compactionThreshold: number | undefined;
  /**
   * Runs one user message through the loop with the conversation so far; yields its events (a sub-agent's
   * too, tagged with their `agentPath`) and returns its result. The transcript and the log are extended as
   * the run goes, and `history` is the run's transcript afterwards — also after an interrupted or failed run,
   * which still hands back a valid transcript. One prompt at a time.
   */
  prompt(text: string | ContentBlock[], options?: PromptOptions): AsyncGenerator<AgentEvent, AgentResult>;
  /**
   * Expands `/name args` into the prompt to send, for a discovered command or skill (no model call), and
   * pre-approves its `allowed-tools` for the conversation.
   */
  expandSlash(line: string): SlashExpansion;
  /**
   * The exact request a prompt would send first in this conversation (reminders and cache breakpoints
   * included), without sending it and without changing the agent: `mitsu inspect`.
   */
  previewRequest(text: string): Promise<ModelRequest>;
  /**
   * The first request the sub-agent `name` would send for the task `text` (its system prompt, its tools, the
   * prompt with its reminders), and the provider that would carry it: `mitsu inspect --agent`. Undefined for an
   * unknown name. Throws when the agent's model cannot be resolved.
   */
  previewSubagentRequest(
    name: string,
    text: string,
  ): Promise<{ provider: Provider; request: ModelRequest } | undefined>;
  /** A short human summary of a call, from the tool's `summarize`. */
  summarize(block: ToolUseBlock): string;
  /**
   * Starts a new conversation (`/clear`): an empty transcript, a new session file (when logging), a fresh
   * context and empty tool state. The provider, the tools and the permission rules (also those allowed
   * "always") stay.
   */
  clear(): Promise<void>;
  /** Ends the agent: stops every background shell's process group, waits for what it still writes. Idempotent. */
  close(): Promise<void>;
}
