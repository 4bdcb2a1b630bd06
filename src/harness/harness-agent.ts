import { randomUUID } from "node:crypto";
import { type AgentDefinitions, type SubagentSpawner, spawnRequestFor } from "../agents/index.js";
import type { Compaction, Compactor } from "../compaction/index.js";
import { type Context, sizeBreakdown } from "../context/index.js";
import type { HookRunner, UnapprovedHooksFile } from "../hooks/index.js";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import type { ReplaceHistory } from "../loop/history-replacement.js";
import type { CanUseTool } from "../loop/permission.js";
import { summarizeCall } from "../loop/summarize-call.js";
import { definitionsOf, type Tool } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import type { ProjectMcp } from "../mcp/index.js";
import type { ContentBlock, Message, TextBlock, ToolUseBlock } from "../messages/index.js";
import { emptyUsage } from "../messages/index.js";
import type { PermissionChecker } from "../permissions/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { SessionLog } from "../session/index.js";
import type { InlineCapabilities } from "../skills/index.js";
import {
  activateSkill,
  expandInvocation,
  findSlashTarget,
  type InlineRun,
  parseSlash,
} from "../skills/index.js";
import type { BackgroundShells } from "../tools/background-shells.js";
import type { SandboxOptions } from "../tools/sandbox.js";
import type { Workspace } from "../tools/workspace.js";
import { appendPrompt } from "./append-prompt.js";
import type { HookNotices } from "./capabilities/hooks.js";
import { backgroundAgentsOf } from "./capabilities/subagents.js";
import type { CapabilityList } from "./capability-list.js";
import type {
  CodingAgent,
  CodingAgentOptions,
  ContextWindowUsage,
  PromptOptions,
  SlashExpansion,
} from "./coding-agent.js";
import type { CostMeter } from "./cost-meter.js";
import type { HarnessState } from "./harness-state.js";
import type { ModelSetup } from "./model-setup.js";
import type { PromptCheckpoints } from "./prompt-checkpoints.js";
import { type RewindFile, rewindPointsOf } from "./rewind-points.js";
import { runPrompt } from "./run-prompt.js";
import type { WorkspaceSetup } from "./workspace-setup.js";

/** What `createCodingAgent` assembled, handed to the agent. */
export interface HarnessParts {
  options: CodingAgentOptions;
  setup: WorkspaceSetup;
  models: ModelSetup;
  capabilities: CapabilityList;
  mcp: () => ProjectMcp | undefined;
  shells: BackgroundShells;
  sandbox: SandboxOptions | undefined;
  tools: Tool<never>[];
  runTools: Tool<never>[];
  /** The tools as assembled from the capabilities now (after a capability's list changed). */
  assembleTools: () => Tool<never>[];
  wrapForRuns: (tools: readonly Tool<never>[]) => Tool<never>[];
  permissions: PermissionChecker;
  canUseTool: CanUseTool;
  denials: CodingAgent["permissionDenials"];
  hookRunner: HookRunner;
  skippedHooks: UnapprovedHooksFile[];
  notices: HookNotices;
  spawn: SubagentSpawner;
  agents: AgentDefinitions;
  readable: Workspace;
  inline: (run: InlineRun) => InlineCapabilities;
  toolState: ToolState;
  checkpoints: PromptCheckpoints;
  meter: CostMeter;
  compactor: Compactor;
  replaceHistory: ReplaceHistory | undefined;
  autoCompacting: boolean;
  context: Context;
  makeContext: (resumed?: { system: TextBlock[] }) => Promise<Context>;
  history: Message[];
  log: SessionLog | undefined;
  logging: boolean;
  sessionId: string;
  /** Whether the conversation continues a session file (SessionStart's source is then `resume`). */
  resumed: boolean;
  newLog: (id: string, system: TextBlock[], now: Date) => SessionLog;
  /** Where a new session file of this id, made at `now`, is written. */
  logPath: (id: string, now: Date) => string;
  maxTurns: number;
  defaultMaxTokens: number;
}

/**
 * The mitsu coding agent as the harness hands it out: one conversation over the assembled parts. Its state is
 * shared with the prompt runner (`runPrompt`) through `HarnessState`; embedders see only `CodingAgent`.
 */
export class HarnessAgent implements CodingAgent, HarnessState {
  readonly options: CodingAgentOptions;
  readonly models: ModelSetup;
  readonly capabilities: CapabilityList;
  readonly hookRunner: HookRunner;
  readonly notices: HookNotices;
  readonly canUseTool: CanUseTool;
  readonly spawn: SubagentSpawner;
  readonly toolState: ToolState;
  readonly runTools: Tool<never>[];
  readonly checkpoints: PromptCheckpoints;
  readonly replaceHistory: ReplaceHistory | undefined;
  readonly requestTokens: ((request: ModelRequest) => number) | undefined;
  readonly maxTurns: number;
  readonly defaultMaxTokens: number;
  readonly logging: boolean;
  readonly resumedMessages: number;
  readonly permissionDenials: CodingAgent["permissionDenials"];
  readonly hooks: CodingAgent["hooks"];
  readonly compactionThreshold: number | undefined;
  context: Context;
  history: Message[];
  log: SessionLog | undefined;
  running = false;
  closed = false;
  thinkingBudget: number | undefined;
  used: number | undefined;
  pendingEpoch: { reason: string; keepReminders?: boolean } | undefined;
  /** When the next session file is (to be) created: its name, told to hooks before it exists. */
  private logStart: Date | undefined;
  sessionSource: "startup" | "resume" | "clear" | undefined;
  setupContext: string[] = [];
  stopRun: ((reason: string) => void) | undefined;
  private sessionUuid: string;
  private byName: Map<string, Tool<never>>;
  readonly meter: CostMeter;

  constructor(private readonly parts: HarnessParts) {
    this.options = parts.options;
    this.models = parts.models;
    this.capabilities = parts.capabilities;
    this.hookRunner = parts.hookRunner;
    this.notices = parts.notices;
    this.canUseTool = parts.canUseTool;
    this.spawn = parts.spawn;
    // A background agent's model calls are not in any prompt's stream: they are counted as they come.
    backgroundAgentsOf(parts.capabilities.list)?.onEvent((event) => {
      if (event.type !== "message" || event.message.role !== "assistant" || !event.message.usage) return;
      this.meter.count({ ...emptyUsage(), ...event.message.usage }, event.agentPath);
    });
    this.toolState = parts.toolState;
    this.runTools = parts.runTools;
    this.checkpoints = parts.checkpoints;
    this.replaceHistory = parts.replaceHistory;
    this.requestTokens = parts.compactor.requestTokens;
    this.maxTurns = parts.maxTurns;
    this.defaultMaxTokens = parts.defaultMaxTokens;
    this.logging = parts.logging;
    this.context = parts.context;
    this.history = parts.history;
    this.log = parts.log;
    this.sessionUuid = parts.sessionId;
    this.resumedMessages = parts.history.length;
    this.permissionDenials = parts.denials;
    this.hooks = { runner: parts.hookRunner, skipped: parts.skippedHooks };
    this.thinkingBudget = parts.options.thinkingBudget;
    this.sessionSource = parts.resumed ? "resume" : "startup";
    this.meter = parts.meter;
    this.byName = new Map(parts.tools.map((t) => [t.name, t]));
    this.compactionThreshold = parts.autoCompacting ? parts.compactor.threshold : undefined;
  }

  get provider() {
    return this.models.resolved.provider;
  }
  get providerName() {
    return this.models.resolved.entry.provider;
  }
  get model() {
    return this.models.resolved.model;
  }
  get maxOutputTokens() {
    return this.models.resolved.entry.maxOutputTokens;
  }
  get tools(): readonly Tool<never>[] {
    return this.parts.tools;
  }
  get mcp() {
    return this.parts.mcp();
  }
  get permissions() {
    return this.parts.permissions;
  }
  /**
   * The mode in force — the checker's, which the terminal's Shift-Tab, the SDK's set_permission_mode, ACP's
   * set_mode and ExitPlanMode all switch — and where the one it started with came from.
   */
  get permissionMode() {
    return { mode: this.parts.permissions.currentMode(), origin: this.parts.setup.permissionMode.origin };
  }
  get trusted() {
    return this.parts.setup.trusted;
  }
  get skills() {
    return this.parts.setup.skills;
  }
  get agents() {
    return this.parts.agents;
  }
  get sessionPath() {
    return this.log?.path;
  }
  get sessionId() {
    return this.log?.header.id;
  }
  get childEnv() {
    return this.parts.setup.scrubbed;
  }
  get shells() {
    return this.parts.shells;
  }
  get backgroundAgents() {
    return backgroundAgentsOf(this.capabilities.list);
  }
  get sandbox() {
    return this.parts.sandbox;
  }
  get folders() {
    return this.parts.setup.folders;
  }
  get readable() {
    return this.parts.readable;
  }
  get images() {
    return this.models.resolved.entry.images;
  }
  get price() {
    return this.models.resolved.entry.price;
  }
  /** The session file hooks are told of: before the first prompt's file exists (SessionStart), where it will be. */
  get hookTranscriptPath(): string {
    return this.log?.path ?? (this.logging ? this.parts.logPath(this.sessionUuid, this.logDate()) : "");
  }
  private logDate(): Date {
    this.logStart ??= new Date();
    return this.logStart;
  }
  /** The id hooks are told: the session file's (a copy made for a session in use has its own), else the new one's. */
  get hookSessionId(): string {
    return this.log?.header.id ?? this.sessionUuid;
  }

  modelFor(spec: string | undefined) {
    return this.models.modelFor(spec);
  }
  inline(run: InlineRun) {
    return this.parts.inline(run);
  }
  newLog(): SessionLog {
    // The id hooks were already told (SessionStart fires before the file is written).
    return this.parts.newLog(this.sessionUuid, this.context.system, this.logDate());
  }
  applyToolChanges(): string | undefined {
    const reason = this.capabilities.toolsChanged();
    if (reason === undefined) return undefined;
    const { tools } = this.parts;
    // In place: the sub-agents' spawner and the Task tool see the same lists.
    tools.splice(0, tools.length, ...this.parts.assembleTools());
    this.runTools.splice(0, this.runTools.length, ...this.parts.wrapForRuns(tools));
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.context.explainNextChange(reason);
    return reason;
  }
  maxTokensFor(requested: number): number {
    const thinking = this.thinkingBudget;
    return thinking === undefined || requested > thinking
      ? requested
      : Math.min(thinking + 4096, Math.max(this.maxOutputTokens, requested));
  }

  cost() {
    return this.meter.cost();
  }
  contextWindow(): ContextWindowUsage {
    return { limit: this.models.resolved.entry.contextWindow, used: this.used };
  }
  setThinking(budget: number | undefined): void {
    if (budget !== undefined && (!Number.isInteger(budget) || budget < 1024))
      throw new RangeError("A thinking budget is a whole number of tokens, at least 1024");
    this.thinkingBudget = budget;
  }
  contextBreakdown() {
    return sizeBreakdown({
      model: this.model,
      system: this.context.system,
      tools: this.context.tools,
      messages: this.history,
      maxTokens: this.defaultMaxTokens,
    });
  }
  async compact(focus?: string, compactOptions: { signal?: AbortSignal } = {}): Promise<Compaction> {
    if (this.closed) throw new Error("This agent is closed.");
    if (this.running) throw new Error("A prompt is running on this agent; compact after its end.");
    this.running = true;
    try {
      const { compactor } = this.parts;
      // Nothing to compact is said before any hook runs.
      compactor.preview(this.history, focus);
      const signal = compactOptions.signal ? { signal: compactOptions.signal } : {};
      await this.hookRunner.run(
        "PreCompact",
        { trigger: "manual", custom_instructions: focus ?? "" },
        signal,
      );
      const done = await compactor.compact(this.history, { ...(focus ? { focus } : {}), ...signal });
      const { messages, reason, summary, before, tokensBefore, tokensAfter, usage } = done;
      this.log?.appendEntry({
        type: "compaction",
        reason,
        before,
        messages,
        summary,
        tokensBefore,
        tokensAfter,
        usage,
      });
      this.history = messages;
      // The prompts the checkpoints belong to are gone from the history: nothing to rewind to.
      this.checkpoints.current()?.clear();
      this.pendingEpoch = { reason };
      this.meter.count(usage);
      this.meter.last = usage;
      this.used = undefined;
      return done;
    } finally {
      this.running = false;
    }
  }
  previewCompaction(focus?: string) {
    return this.parts.compactor.preview(this.history, focus);
  }
  prompt(
    text: string | ContentBlock[],
    promptOptions: PromptOptions = {},
  ): AsyncGenerator<AgentEvent, AgentResult> {
    return runPrompt(this, text, promptOptions);
  }
  expandSlash(line: string): SlashExpansion {
    const slash = parseSlash(line.trim());
    if (!slash) return { kind: "none" };
    const command = this.capabilities.commands().find((c) => c.name === slash.name);
    if (command) {
      return {
        kind: "mcp-prompt",
        name: command.name,
        expand: async (signal) => command.expand(slash.args, signal),
      };
    }
    const target = findSlashTarget(slash.name, this.skills);
    if (!target) return { kind: "unknown", name: slash.name };
    activateSkill(this.toolState, target);
    return { kind: "prompt", text: expandInvocation(target, slash.args) };
  }
  async previewRequest(text: string): Promise<ModelRequest> {
    // A throwaway context with the same system prompt: the agent's own context is not advanced.
    const preview = await this.parts.makeContext({ system: this.context.system });
    const request: ModelRequest = {
      model: this.model,
      system: preview.system,
      tools: definitionsOf(this.tools),
      messages: appendPrompt(this.history, text),
      maxTokens: this.defaultMaxTokens,
    };
    return preview.prepareRequest(request, { turn: 1 });
  }
  async previewSubagentRequest(name: string, text: string) {
    const definition = this.agents.agents.find((a) => a.name === name);
    if (!definition) return undefined;
    return this.spawn.firstRequest(
      spawnRequestFor(definition, { prompt: text }, { toolNames: () => this.tools.map((t) => t.name) }),
    );
  }
  summarize(block: ToolUseBlock): string {
    return summarizeCall(this.byName.get(block.name), block);
  }
  rewindPoints() {
    return rewindPointsOf(this.history);
  }
  /** The folders a rewind may write in: the session's workspace and the memory folder, nothing a session file names. */
  private rewindRoots(): string[] {
    const { cwd, folders, memory } = this.parts.setup;
    return [cwd, ...folders.list(), memory];
  }
  rewindPreview(toPromptIndex: number): RewindFile[] {
    return this.checkpoints.current()?.plan(toPromptIndex, this.rewindRoots()) ?? [];
  }
  rewind(toPromptIndex: number, rewindOptions: { restoreFiles?: boolean } = {}) {
    if (this.closed) throw new Error("This agent is closed.");
    if (this.running) throw new Error("A prompt is running on this agent; rewind after its end.");
    if (!rewindPointsOf(this.history).some((p) => p.index === toPromptIndex)) {
      throw new Error(`No user prompt at index ${toPromptIndex} of the conversation.`);
    }
    this.log?.appendEntry({ type: "rewind", keep: toPromptIndex });
    this.history = this.history.slice(0, toPromptIndex);
    this.used = undefined;
    // Going back is a sanctioned change of the history: the next request starts a new prefix epoch (the cache
    // still reads the part kept), not a "broken prefix"; the first prompt's instructions stay unless it went.
    this.pendingEpoch = {
      reason: "rewound to an earlier prompt",
      ...(toPromptIndex > 0 ? { keepReminders: true } : {}),
    };
    const store = this.checkpoints.current();
    if (rewindOptions.restoreFiles)
      return store?.restoreFrom(toPromptIndex, this.rewindRoots()) ?? { restored: [], notRestored: [] };
    store?.dropFrom(toPromptIndex);
    return { restored: [], notRestored: [] };
  }
  async clear(): Promise<void> {
    if (this.sessionSource === undefined) await this.hookRunner.run("SessionEnd", { reason: "clear" });
    this.sessionSource = "clear";
    this.sessionUuid = randomUUID();
    this.context = await this.parts.makeContext();
    this.toolState.clear();
    this.history = [];
    this.used = undefined;
    this.pendingEpoch = undefined;
    // The cost stays: it is what this agent has spent, across conversations (what the user pays).
    this.meter.last = undefined;
    // The earlier conversation's file is done with: another mitsu may continue it now.
    this.log?.close();
    this.log = undefined;
    this.logStart = undefined;
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sessionSource === undefined) await this.hookRunner.run("SessionEnd", { reason: "other" });
    this.log?.close();
    await this.capabilities.close(this.parts.setup.warn);
    await this.models.flushDump?.();
  }
}
