import {
  type AgentDefinitions,
  BackgroundAgents,
  createSendMessageTool,
  createSubagentSpawner,
  createTaskOutputTool,
  createTaskStopTool,
  createTaskTool,
  type SubagentSpawner,
  subagentEnvironment,
} from "../../agents/index.js";
import type { HookRunner } from "../../hooks/index.js";
import type { Journal } from "../../loop/journal.js";
import type { CanUseTool } from "../../loop/permission.js";
import type { Spawner } from "../../loop/spawn.js";
import type { Tool } from "../../loop/tool.js";
import type { SessionLog } from "../../session/index.js";
import { getReadTracker } from "../../tools/read-tracker.js";
import type { Capability } from "../capability.js";
import type { CodingAgentOptions } from "../coding-agent.js";
import type { ModelSetup } from "../model-setup.js";
import { openSubagentLog } from "../subagent-log.js";
import { withSubagentStartContext } from "../subagent-start-hook.js";
import type { WorkspaceSetup } from "../workspace-setup.js";

/** The sub-agents capability, with the conversation's agents (background and kept ones). */
export interface SubagentsCapability extends Capability {
  readonly background: BackgroundAgents;
}

/**
 * The Task tool (the model starts a sub-agent of one of the agent types, in the foreground or the background),
 * TaskOutput, TaskStop and SendMessage; the reminder that carries a background agent's answer into the next
 * request; closing stops the agents still running.
 */
export function subagentsCapability(
  agents: AgentDefinitions,
  toolNames: () => string[],
): SubagentsCapability {
  const background = new BackgroundAgents();
  const tools = [
    createTaskTool({ agents: agents.agents, toolNames, background }),
    createTaskOutputTool(background),
    createTaskStopTool(background),
    createSendMessageTool(background),
  ] as unknown as Tool<never>[];
  let warn: ((message: string) => void) | undefined;
  return {
    name: "subagents",
    background,
    tools,
    start: (start) => {
      warn = start.warn;
    },
    reminders: [background.reminderSource((message) => warn?.(message))],
    close: () => background.close(),
  };
}

/** The conversation's sub-agents, from the sub-agents capability in `list`. */
export function backgroundAgentsOf(list: readonly Capability[]): BackgroundAgents | undefined {
  const found = list.find((c): c is SubagentsCapability => c.name === "subagents" && "background" in c);
  return found?.background;
}

export interface SpawnDeps {
  setup: WorkspaceSetup;
  models: ModelSetup;
  options: CodingAgentOptions;
  /** The tools the runs get (a child's are chosen from these by name). */
  tools: readonly Tool<never>[];
  canUseTool: CanUseTool;
  hooks: HookRunner;
  maxTurns: number;
  /** The conversation's log now, if any: a child's transcript goes beside it. */
  log: () => SessionLog | undefined;
  journal: Journal | undefined;
}

/**
 * The spawner every run gets (`RunAgentOptions.spawn`): a child has the parent's model unless its definition says
 * otherwise, the same permission checker, and its transcript beside the conversation's log, linked from it by
 * the Task call's id. SubagentStop hooks are told when a child's run ends (its answer is already final).
 */
export function createSpawn(deps: SpawnDeps): SubagentSpawner {
  const { setup, models, options } = deps;
  const { resolved } = models;
  const { cwd, home, env } = setup;
  const spawnChild = createSubagentSpawner({
    tools: deps.tools,
    trackedFiles: (state) => getReadTracker(state).entries(),
    parent: {
      provider: resolved.provider,
      providerName: resolved.entry.provider,
      model: resolved.model,
      maxOutputTokens: resolved.entry.maxOutputTokens,
      contextWindow: resolved.entry.contextWindow,
    },
    resolveModel: (spec) => {
      const child = models.resolveSpec(spec);
      const { maxOutputTokens, contextWindow } = child.entry;
      return { provider: child.provider, model: child.model, maxOutputTokens, contextWindow };
    },
    canUseTool: deps.canUseTool,
    environment: subagentEnvironment({ cwd, now: new Date(), env }),
    cwd,
    home,
    env,
    ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
    maxTurns: deps.maxTurns,
    ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    maxDepth: options.maxAgentDepth ?? agentDepthFrom(setup.env),
    transcript: (info) => {
      const log = deps.log();
      return log ? openSubagentLog(log, info) : undefined;
    },
    ...(deps.journal ? { journal: deps.journal } : {}),
    ...(options.compaction !== undefined ? { compaction: options.compaction } : {}),
  });
  const { hooks } = deps;
  return Object.assign(
    async function* (...args: Parameters<Spawner>): ReturnType<Spawner> {
      // SubagentStart: told when a sub-agent starts (matched on its type; its context goes to the sub-agent).
      args[0] = await withSubagentStartContext(hooks, args[0], args[1]);
      const result = yield* spawnChild(...args);
      if (hooks.has("SubagentStop")) await hooks.run("SubagentStop", { stop_hook_active: false });
      return result;
    },
    { firstRequest: spawnChild.firstRequest },
  );
}

/**
 * How deep sub-agents nest when `maxAgentDepth` is not given: `MITSU_MAX_AGENT_DEPTH`, else 1 — a sub-agent
 * cannot start its own, as in Claude Code.
 */
export function agentDepthFrom(env: Record<string, string | undefined>): number {
  const value = Number(env.MITSU_MAX_AGENT_DEPTH);
  return Number.isInteger(value) && value >= 1 ? value : 1;
}
