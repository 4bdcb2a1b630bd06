import type { Tool, ToolOutput } from "../loop/tool.js";
import type { BackgroundAgents } from "./background-agents.js";
import { unknownAgent } from "./task-output-tool.js";

/** `TaskStop` (Claude Code's name): stops a running background agent. */
export function createTaskStopTool(agents: BackgroundAgents): Tool<{ task_id: string }> {
  return {
    name: "TaskStop",
    description:
      "Stops a running sub-agent started with Task (run_in_background). Its answer will not arrive; what it wrote so far is in TaskOutput.",
    inputSchema: {
      type: "object",
      properties: { task_id: { type: "string", description: "The agent id from the Task result" } },
      required: ["task_id"],
      additionalProperties: false,
    },
    readOnly: true,
    summarize: (input) => `TaskStop(${input.task_id})`,
    async run(input): Promise<ToolOutput> {
      const record = agents.get(input.task_id);
      if (!record) return { content: unknownAgent(agents, input.task_id), isError: true };
      if (!(await agents.stop(input.task_id))) {
        return { content: `Agent ${input.task_id} is not running (${record.status}).`, isError: true };
      }
      return `Stopped agent ${input.task_id} (${record.agent}: ${record.description}).`;
    },
  };
}
