import type { SpawnRequest } from "../loop/spawn.js";
import type { Tool, ToolOutput } from "../loop/tool.js";
import type { AgentDefinition } from "./agent-definition.js";
import { type BackgroundAgents, backgroundStartedText } from "./background-agents.js";
import { formatSubagentResult } from "./format-subagent-result.js";
import { taskToolDescription } from "./task-tool-description.js";

/** The Task tool's input, as Claude Code names it. */
export interface TaskToolInput {
  /** A short (3–5 word) label of the task, for the user. */
  description: string;
  /** The whole brief for the sub-agent: the only thing it will know. */
  prompt: string;
  /** Which agent runs it: a name from the tool's description. */
  subagent_type: string;
  /** Start it in the background: the call returns at once with the agent's id (with `TaskOptions.background`). */
  run_in_background?: boolean;
}

export interface TaskToolOptions {
  /** The agents the model may start, listed in this order (`loadAgentDefinitions` sorts them by name). */
  agents: readonly AgentDefinition[];
  /**
   * The parent's tool names: an agent's tools it lacks are left out (files written for other agents name tools
   * mitsu may not have), and an agent that inherits all but its `disallowedTools` gets the rest.
   */
  toolNames?: () => readonly string[];
  /** A sub-agent's model call limit (default: the spawner's). */
  maxTurns?: number;
  /**
   * The conversation's sub-agents: with it, Task takes `run_in_background`, and every agent it starts is kept
   * under an id (in its result) for `TaskOutput`, `TaskStop` and `SendMessage`.
   */
  background?: BackgroundAgents;
}

/**
 * The Task tool: starts a sub-agent through `ToolContext.spawn` (the harness's spawner; this module never
 * composes agents itself) and answers with its final text and a line of stats — none of its intermediate
 * messages reach the parent's transcript. Several Task calls of one turn run at the same time. Its description
 * is fixed when the tool is made (byte-stable, so the `tools` prefix stays cached).
 */
export function createTaskTool(options: TaskToolOptions): Tool<TaskToolInput> {
  const agents = [...options.agents];
  const byName = new Map(agents.map((agent) => [agent.name, agent]));
  const names = agents.map((agent) => agent.name);
  return {
    name: "Task",
    description: taskToolDescription(agents),
    inputSchema: {
      type: "object",
      properties: {
        description: { type: "string", description: "A short (3-5 word) description of the task" },
        prompt: {
          type: "string",
          description: "The task for the agent: everything it needs to know, and what to report back",
        },
        subagent_type: {
          type: "string",
          description: "The type of agent to use",
          ...(names.length > 0 ? { enum: names } : {}),
        },
        ...(options.background
          ? {
              run_in_background: {
                type: "boolean",
                description:
                  "Run the agent in the background and go on working: you get its id at once, and its answer arrives in a later message when it ends (TaskOutput reads it earlier, TaskStop stops it). Only for the main agent.",
              },
            }
          : {}),
      },
      required: ["description", "prompt", "subagent_type"],
      additionalProperties: false,
    },
    summarize: (input) => `Task(${input.subagent_type}: ${input.description})`,
    async run(input, context): Promise<ToolOutput> {
      const agent = byName.get(input.subagent_type);
      if (!agent) {
        return {
          content: `Unknown subagent_type "${input.subagent_type}". Available: ${names.join(", ") || "(none)"}.`,
          isError: true,
        };
      }
      if (!context.spawn) {
        return {
          content: "Sub-agents cannot be started here (no Task nesting at this depth).",
          isError: true,
        };
      }
      const request = spawnRequestFor(agent, input, {
        ...(options.toolNames ? { toolNames: options.toolNames } : {}),
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      });
      const registry = options.background;
      // Only the main agent runs agents in the background: a sub-agent's answer must be its own final text.
      if (registry && input.run_in_background === true && context.spawner && context.agentPath.length === 0) {
        const record = registry.start({
          spawner: context.spawner,
          request,
          agentPath: [...context.agentPath, context.toolUseId],
          agent: agent.name,
          description: input.description,
        });
        return `${backgroundStartedText(record.id, agent.name)} It runs while you go on working; its answer arrives in a later message when it ends. Use TaskOutput to read it earlier (or wait for it), TaskStop to stop it, SendMessage to send it more.`;
      }
      const started = performance.now();
      const result = await context.spawn(request);
      const output = formatSubagentResult(result, {
        agent: agent.name,
        durationMs: performance.now() - started,
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      });
      if (!registry) return output;
      const record = registry.keep({
        agent: agent.name,
        description: input.description,
        agentPath: [...context.agentPath, context.toolUseId],
        background: false,
        result,
        startedAt: started,
        endedAt: performance.now(),
        request,
        ...(context.spawner ? { spawner: context.spawner } : {}),
      });
      return { ...output, content: withAgentId(output.content, record.id) };
    },
  };
}

/** What the Task tool asks the spawner for, to run `agent` on a task (also what `mitsu inspect --agent` shows). */
export function spawnRequestFor(
  agent: AgentDefinition,
  task: { prompt: string; description?: string },
  options: { toolNames?: () => readonly string[]; maxTurns?: number } = {},
): SpawnRequest {
  let tools = agent.tools;
  const available = options.toolNames?.();
  if (tools && available) {
    // An agent file written for another agent may name tools this one lacks (WebSearch): they are left out.
    tools = tools.filter((name) => available.includes(name));
  }
  if (!tools && agent.disallowedTools && available) {
    const denied = new Set(agent.disallowedTools);
    tools = available.filter((name) => !denied.has(name));
  }
  return {
    system: agent.prompt,
    prompt: task.prompt,
    agent: agent.name,
    ...(task.description !== undefined ? { description: task.description } : {}),
    ...(tools ? { tools } : {}),
    ...(agent.model !== undefined ? { model: agent.model } : {}),
    ...(agent.readOnly ? { readOnly: true } : {}),
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
  };
}

/** The result's stats line `[Explore: …]` with the agent's id added, for `SendMessage`. */
export function withAgentId(content: string, id: string): string {
  return content.endsWith("]") ? `${content.slice(0, -1)}; agent id ${id}]` : `${content}\n[agent id ${id}]`;
}
