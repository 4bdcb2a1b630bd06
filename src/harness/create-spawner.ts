import type { AgentEvent, AgentPath, AgentResult } from "../loop/agent-event.js";
import type { Journal } from "../loop/journal.js";
import type { CanUseTool } from "../loop/permission.js";
import { runAgent } from "../loop/run-agent.js";
import type { Spawner, SpawnRequest } from "../loop/spawn.js";
import type { Tool } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { emptyUsage } from "../messages/index.js";
import type { Provider } from "../providers/provider.js";

/** A model a child may run on. */
export interface ChildModel {
  provider: Provider;
  model: string;
  maxOutputTokens: number;
  contextWindow: number;
}

export interface SpawnerOptions {
  /** Resolves a child's `provider:model` spec; `undefined` means the parent's model. May throw. */
  resolveModel: (spec: string | undefined) => ChildModel;
  /** The tools a child may be given, by name (the parent's). */
  tools: readonly Tool<never>[];
  /** The parent's permission checker: a child's calls are decided by the same rules and the same user. */
  canUseTool?: CanUseTool;
  /** A child's model call limit when the request names none. */
  maxTurns: number;
  /** The deepest `agentPath` a child may have. */
  maxDepth: number;
  journal?: Journal;
}

async function* failed(
  agentPath: AgentPath,
  type: string,
  message: string,
): AsyncGenerator<AgentEvent, AgentResult> {
  const result: AgentResult = {
    reason: "error",
    messages: [],
    usage: emptyUsage(),
    error: { type, message },
  };
  yield { type: "agent-end", ...result, agentPath };
  return result;
}

/**
 * The harness's `Spawner`: a child is a nested `runAgent` with its own system prompt, the named subset of the
 * parent's tools, its own model (resolved by the registry, so another provider is fine), a tool state of its
 * own, and the parent's permission checker and abort signal. It may spawn in turn, up to `maxDepth`.
 */
export function createSpawner(options: SpawnerOptions): Spawner {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const spawn: Spawner = (request: SpawnRequest, origin) => {
    const { agentPath, signal } = origin;
    if (agentPath.length > options.maxDepth) {
      return failed(
        agentPath,
        "spawn_depth",
        `Sub-agents may nest ${options.maxDepth} deep; this one would be deeper.`,
      );
    }
    const names = request.tools ?? [...byName.keys()];
    const unknown = names.filter((name) => !byName.has(name));
    if (unknown.length > 0) {
      return failed(agentPath, "invalid_tools", `Unknown tool for a sub-agent: ${unknown.join(", ")}`);
    }
    let child: ChildModel;
    try {
      child = options.resolveModel(request.model);
    } catch (error) {
      return failed(agentPath, "invalid_model", error instanceof Error ? error.message : String(error));
    }
    return runAgent({
      provider: child.provider,
      model: child.model,
      system: request.system,
      tools: names.map((name) => byName.get(name) as Tool<never>),
      messages: [{ role: "user", content: [{ type: "text", text: request.prompt }] }],
      maxTurns: request.maxTurns ?? options.maxTurns,
      maxTokens: Math.min(child.maxOutputTokens, 32_000),
      contextWindow: child.contextWindow,
      signal,
      agentPath,
      toolState: new ToolState(),
      spawn,
      ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
      ...(options.journal ? { journal: options.journal } : {}),
    });
  };
  return spawn;
}
