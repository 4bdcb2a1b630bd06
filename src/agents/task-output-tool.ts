import type { Tool, ToolOutput } from "../loop/tool.js";
import { type AgentRecord, answerText, type BackgroundAgents } from "./background-agents.js";
import { lastText } from "./format-subagent-result.js";

export interface TaskOutputInput {
  /** The agent's id (from the Task call's result). */
  task_id: string;
  /** Wait for it to end (default true). */
  block?: boolean;
  /** How long to wait, in milliseconds (default 30,000, at most 600,000). */
  timeout?: number;
}

/**
 * `TaskOutput` (Claude Code's name): a background agent's answer once it ended — then it counts as delivered and
 * no reminder repeats it — or, while it runs, its status and the last text it wrote; `block` waits up to
 * `timeout` ms for the end first.
 */
export function createTaskOutputTool(agents: BackgroundAgents): Tool<TaskOutputInput> {
  return {
    name: "TaskOutput",
    description:
      "Reads the output of a sub-agent started with Task (run_in_background): its final answer when it has ended, else its status and what it has written so far. By default waits for it to end (block: true, timeout in ms, default 30000); block: false answers at once.",
    inputSchema: {
      type: "object",
      properties: {
        task_id: { type: "string", description: "The agent id from the Task result" },
        block: { type: "boolean", description: "Wait for the agent to end (default true)" },
        timeout: { type: "number", description: "Max wait in ms (default 30000, max 600000)", minimum: 0 },
      },
      required: ["task_id"],
      additionalProperties: false,
    },
    readOnly: true,
    summarize: (input) => `TaskOutput(${input.task_id})`,
    async run(input, context): Promise<ToolOutput> {
      let record = agents.get(input.task_id);
      if (!record) return { content: unknownAgent(agents, input.task_id), isError: true };
      if (input.block !== false && record.status === "running") {
        const timeout = Math.min(Math.max(input.timeout ?? 30_000, 0), 600_000);
        record = (await agents.wait(input.task_id, timeout, context.signal)) ?? record;
      }
      if (record.status !== "running") {
        const text = record.background ? agents.deliver(record) : answerText(record);
        return text;
      }
      return runningText(record);
    },
  };
}

function runningText(record: AgentRecord): string {
  const seconds = ((performance.now() - record.startedAt) / 1000).toFixed(1);
  const so = lastText({ reason: "end_turn", messages: record.messages, usage: {} as never });
  const turns = record.messages.filter((m) => m.role === "assistant").length;
  return `Agent ${record.id} (${record.agent}: ${record.description}) is still running (${seconds} s, ${turns} model calls so far).${so ? `\nThe last text it wrote:\n${so}` : ""}`;
}

export function unknownAgent(agents: BackgroundAgents, id: string): string {
  const ids = agents.list().map((r) => `${r.id} (${r.agent}, ${r.status})`);
  return `No agent with id ${id}. Known agents: ${ids.join(", ") || "(none)"}.`;
}
