import { type CompactionSettings, createCompactor } from "../compaction/create-compactor.js";
import type { TrackedFile } from "../context/changed-files-source.js";
import { createContext } from "../context/create-context.js";
import type { ReminderSource } from "../context/reminder-engine.js";
import type { AgentEvent, AgentPath, AgentResult } from "../loop/agent-event.js";
import type { Journal } from "../loop/journal.js";
import type { CanUseTool } from "../loop/permission.js";
import { type RunAgentOptions, runAgent } from "../loop/run-agent.js";
import type { Spawner, SpawnOrigin, SpawnRequest } from "../loop/spawn.js";
import { definitionsOf, type Tool } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { emptyUsage, type Message, type TextBlock } from "../messages/index.js";
import { isReadOnlyCommand } from "../permissions/read-only-command.js";
import type { ModelRequest, Provider } from "../providers/provider.js";
import { type ResolvedAgentModel, resolveAgentModel } from "./resolve-agent-model.js";

/** What a child's transcript is opened with (see `SubagentSpawnerOptions.transcript`). */
export interface SubagentTranscriptInfo {
  /** The Task call that started the child: the link from the parent's log. */
  toolUseId: string;
  agentPath: AgentPath;
  /** The kind of agent (`Explore`), when the request named one. */
  agent?: string;
  description?: string;
  /** `api:model` of the child's model. */
  model: string;
  /** The child's system prompt as sent. */
  system: TextBlock[];
}

/** A child's session-log hooks (see `RunAgentOptions`), and `close`, called once when the child's run ends. */
export type SubagentTranscript = Pick<
  RunAgentOptions,
  "onMessage" | "onToolStart" | "onToolResult" | "onHistoryReplaced"
> & {
  close?: () => void;
};

export interface SubagentSpawnerOptions {
  /**
   * The files a child's run has read or written, from its tool state: the project's path rules (`paths:` globs)
   * that match one are sent to the child, as they are to the parent for its own. Absent: none are.
   */
  trackedFiles?: (state: ToolState) => readonly TrackedFile[];
  /** The parent's tools: a child's are chosen from these by name (read at each start). */
  tools: readonly Tool<never>[] | (() => readonly Tool<never>[]);
  /** The parent's model: what `inherit` (or no model) means, and whose family the aliases come from. */
  parent: ResolvedAgentModel & { providerName: string };
  /**
   * Resolves a `provider:model` spec for a child on another model (the model registry's `resolveModel` with the
   * session's environment and fetch). Without it, a child may only use the parent's model.
   */
  resolveModel?: (spec: string) => ResolvedAgentModel;
  /** The parent's permission checker: it decides every call of every child too. */
  canUseTool?: CanUseTool;
  /** The environment section put after each child's own system prompt, for its model id. Stable per model. */
  environment?: (model: string) => string | Promise<string>;
  /** Where the child's project instructions come from (the reminder the parent gets, too). */
  cwd: string;
  home?: string;
  env?: Record<string, string | undefined>;
  cacheTtl?: "5m" | "1h";
  /** A child's model call limit when the request sets none. Default 50. */
  maxTurns?: number;
  /** `max_tokens` of a child's calls; default the smaller of its model's limit and 32,000. */
  maxTokens?: number;
  /** How deep agents nest: 1 (default) means a child gets neither `Task` nor a spawner of its own. */
  maxDepth?: number;
  /**
   * Opens the child's own transcript (its session log, beside the parent's); returns the child's session-log
   * hooks (`onMessage` with each of its messages as sent, and optionally each call's start and result), like
   * those of `RunAgentOptions`. Undefined: nothing is logged for that child.
   */
  transcript?: (info: SubagentTranscriptInfo) => SubagentTranscript | undefined;
  journal?: Journal;
  liveInput?: boolean;
  /**
   * How a child's own history is kept under its model's window (when the window is known): compacted like the
   * parent's (a summary, else a deterministic trim) with these settings; `false` turns the summary off, and
   * only a history that would not fit at all is trimmed. Default: compaction with the defaults.
   */
  compaction?: CompactionSettings | false;
}

/**
 * A `Spawner` that can also show, without sending it, the first request a child would send (`mitsu inspect
 * --agent`): the same system prompt, tools and prepared prompt, with the provider that would carry it.
 */
export type SubagentSpawner = Spawner & {
  firstRequest(request: SpawnRequest): Promise<{ provider: Provider; request: ModelRequest }>;
};

/** The text a child's refused write gets, in the model's words. */
const READ_ONLY_DENIAL =
  "This agent is read-only: it may only look (Read, Grep, Glob, and Bash commands that change nothing, such as ls, git log or grep), so this call was not run.";

/**
 * The spawner the harness hands the loop (`RunAgentOptions.spawn`): each child is a `runAgent` of its own —
 * its own system prompt (the request's, then the environment section), its own tools (those of the parent it
 * names, never more; `Task` only while `maxDepth` allows), its own tool state, its own model (resolved here,
 * possibly on another provider), and one user message, the prompt, to which its context adds the project
 * instructions as a reminder, with cache breakpoints as for the parent. Its calls go through the parent's
 * permission checker, tagged with who asks; a `readOnly` request denies every call that could change
 * something. Never throws: a child that cannot start ends with one `agent-end` of reason `error`.
 */
export function createSubagentSpawner(options: SubagentSpawnerOptions): SubagentSpawner {
  const maxDepth = options.maxDepth ?? 1;
  const parentTools = () => (typeof options.tools === "function" ? options.tools() : options.tools);

  /** Everything a child needs before its first request; throws when it cannot start. */
  const prepare = async (request: SpawnRequest, agentPath: AgentPath) => {
    let model: ResolvedAgentModel;
    try {
      model = resolveAgentModel(request.model, options.parent, options.resolveModel);
    } catch (error) {
      throw new SpawnError("invalid_model", error instanceof Error ? error.message : String(error));
    }
    if (agentPath.length > maxDepth) {
      throw new SpawnError("spawn_depth", `Sub-agents may nest ${maxDepth} deep; this one would be deeper.`);
    }
    const nests = agentPath.length < maxDepth;
    const offered = parentTools();
    const unknown = (request.tools ?? []).filter((name) => !offered.some((tool) => tool.name === name));
    if (unknown.length > 0) {
      throw new SpawnError("invalid_tools", `Unknown tool for a sub-agent: ${unknown.join(", ")}`);
    }
    const tools = childTools(offered, request, nests);
    try {
      const environment = await options.environment?.(model.model);
      const own: TextBlock[] =
        typeof request.system === "string"
          ? request.system.trim() === ""
            ? []
            : [{ type: "text", text: request.system }]
          : [...request.system];
      if (environment) own.push({ type: "text", text: environment });
      const toolState = new ToolState();
      const tracked = options.trackedFiles;
      const context = await createContext({
        cwd: options.cwd,
        ...(tracked ? { trackedFiles: () => tracked(toolState) } : {}),
        model: model.model,
        tools: definitionsOf(tools),
        system: own,
        dateChange: false,
        ...(request.inbox ? { sources: [inboxSource(request.inbox)] } : {}),
        ...(options.home !== undefined ? { home: options.home } : {}),
        ...(options.env !== undefined ? { env: options.env } : {}),
        ...(options.cacheTtl !== undefined ? { cacheTtl: options.cacheTtl } : {}),
      });
      return { model, tools, context, nests, toolState };
    } catch (error) {
      throw new SpawnError("subagent_setup_error", `The sub-agent could not start: ${String(error)}`);
    }
  };

  const maxTokensFor = (model: ResolvedAgentModel) =>
    options.maxTokens ?? Math.min(model.maxOutputTokens, 32_000);

  const spawner = async function* (
    request: SpawnRequest,
    origin: SpawnOrigin,
  ): AsyncGenerator<AgentEvent, AgentResult> {
    const { agentPath, signal } = origin;
    let prepared: Awaited<ReturnType<typeof prepare>>;
    try {
      prepared = await prepare(request, agentPath);
    } catch (error) {
      const { type, message } =
        error instanceof SpawnError ? error : { type: "subagent_setup_error", message: String(error) };
      const result: AgentResult = {
        reason: "error",
        messages: [],
        usage: emptyUsage(),
        error: { type, message },
      };
      yield { type: "agent-end", ...result, agentPath };
      return result;
    }
    const { model, tools, context, nests, toolState } = prepared;
    const label = request.agent ?? "sub-agent";
    const who = request.description ? `${label}: ${request.description}` : label;
    const parentCheck = options.canUseTool;
    const canUseTool: CanUseTool = async (tool, input, ctx) => {
      if (request.readOnly && !tool.readOnly) {
        const command = tool.name === "Bash" ? input.command : undefined;
        if (typeof command !== "string" || !isReadOnlyCommand(command)) {
          return { behavior: "deny", message: READ_ONLY_DENIAL };
        }
      }
      return parentCheck ? parentCheck(tool, input, { ...ctx, agent: who }) : { behavior: "allow" };
    };
    const transcript = options.transcript?.({
      toolUseId: agentPath.at(-1) ?? "",
      agentPath,
      model: `${model.provider.api}:${model.model}`,
      system: context.system,
      ...(request.agent !== undefined ? { agent: request.agent } : {}),
      ...(request.description !== undefined ? { description: request.description } : {}),
    });
    // The child's history is its own to keep under its window, as the parent's is (a summary, else a trim).
    const compactor =
      model.contextWindow === undefined
        ? undefined
        : createCompactor({
            ...(options.compaction === false ? { auto: false } : (options.compaction ?? {})),
            provider: model.provider,
            model: model.model,
            contextWindow: model.contextWindow,
            maxTokens: maxTokensFor(model),
            base: () => ({ system: context.system, tools: context.tools }),
            ...(options.cacheTtl !== undefined ? { cacheTtl: options.cacheTtl } : {}),
          });
    const run = runAgent({
      provider: model.provider,
      model: model.model,
      system: context.system,
      tools,
      messages: [...(request.history ?? []), promptMessage(request)],
      maxTurns: request.maxTurns ?? options.maxTurns ?? 50,
      maxTokens: maxTokensFor(model),
      ...(model.contextWindow !== undefined ? { contextWindow: model.contextWindow } : {}),
      signal,
      canUseTool,
      toolState,
      prepareRequest: (req, info) => context.prepareRequest(req, info),
      agentPath,
      ...(nests ? { spawn: spawner } : {}),
      ...(transcript?.onMessage ? { onMessage: transcript.onMessage } : {}),
      ...(transcript?.onToolStart ? { onToolStart: transcript.onToolStart } : {}),
      ...(transcript?.onToolResult ? { onToolResult: transcript.onToolResult } : {}),
      ...(transcript?.onHistoryReplaced ? { onHistoryReplaced: transcript.onHistoryReplaced } : {}),
      ...(compactor
        ? { replaceHistory: compactor.replaceHistory, requestTokens: compactor.requestTokens }
        : {}),
      ...(options.journal ? { journal: options.journal } : {}),
      ...(options.liveInput !== undefined ? { liveInput: options.liveInput } : {}),
    });
    try {
      return yield* run;
    } finally {
      transcript?.close?.();
    }
  } as SubagentSpawner;

  spawner.firstRequest = async (request) => {
    const { model, tools, context } = await prepare(request, ["preview"]);
    const raw: ModelRequest = {
      model: model.model,
      system: context.system,
      tools: definitionsOf(tools),
      messages: [promptMessage(request)],
      maxTokens: maxTokensFor(model),
    };
    return { provider: model.provider, request: await context.prepareRequest(raw, { turn: 1 }) };
  };
  return spawner;
}

/** A running child's messages from its parent (`SpawnRequest.inbox`), one reminder per request that has any. */
function inboxSource(inbox: () => string[]): ReminderSource {
  return {
    name: "subagent-inbox",
    collect: () => {
      const texts = inbox();
      if (texts.length === 0) return undefined;
      return texts.map((text) => `A message from the agent that started you:\n${text}`).join("\n\n");
    },
  };
}

function promptMessage(request: SpawnRequest): Message {
  return { role: "user", content: [{ type: "text", text: request.prompt }] };
}

/** Why a child could not start: its `agent-end` error. */
class SpawnError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** The tools that start or manage sub-agents: a child gets them only while it may nest. */
const AGENT_TOOLS = new Set(["Task", "TaskOutput", "TaskStop", "SendMessage"]);

/** The parent's tools the request names (all when it names none), in the parent's order; `Task` only if `nests`. */
function childTools(parent: readonly Tool<never>[], request: SpawnRequest, nests: boolean): Tool<never>[] {
  const wanted = request.tools ? new Set(request.tools) : undefined;
  return parent.filter((tool) => {
    if (AGENT_TOOLS.has(tool.name) && !nests) return false;
    // Plan approval is the main agent's conversation with the user.
    if (tool.name === "ExitPlanMode") return false;
    return wanted ? wanted.has(tool.name) : true;
  });
}
