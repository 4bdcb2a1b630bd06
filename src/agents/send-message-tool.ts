import type { Tool, ToolOutput } from "../loop/tool.js";
import type { BackgroundAgents } from "./background-agents.js";
import { formatSubagentResult } from "./format-subagent-result.js";
import { unknownAgent } from "./task-output-tool.js";
import { withAgentId } from "./task-tool.js";

export interface SendMessageInput {
  /** The agent's id (from its Task result). */
  to: string;
  message: string;
}

/**
 * `SendMessage`: more work for a sub-agent, in its own transcript (so its prompt cache is reused). A running
 * agent reads the message before its next model call; a finished one continues — in the background if it was
 * started there (its answer arrives like the first), else here, and the call answers with its new final text.
 */
export function createSendMessageTool(agents: BackgroundAgents): Tool<SendMessageInput> {
  return {
    name: "SendMessage",
    description:
      "Sends a message to a sub-agent you started with Task, by its agent id: a running agent reads it before its next step; a finished agent continues its own conversation with it (it remembers what it did) and answers again. Use it for follow-up questions or more work for the same agent instead of starting a new one.",
    inputSchema: {
      type: "object",
      properties: {
        to: { type: "string", description: "The agent id from the Task result" },
        message: { type: "string", description: "The message: what to do or answer next" },
      },
      required: ["to", "message"],
      additionalProperties: false,
    },
    summarize: (input) => `SendMessage(${input.to})`,
    async run(input, context): Promise<ToolOutput> {
      const record = agents.get(input.to);
      if (!record) return { content: unknownAgent(agents, input.to), isError: true };
      if (record.status === "running" || record.background) {
        if (!context.spawner && record.status !== "running") {
          return { content: "Sub-agents cannot be started here.", isError: true };
        }
        return agents.send(input.to, input.message, context.spawner);
      }
      if (!context.spawn) return { content: "Sub-agents cannot be started here.", isError: true };
      const started = performance.now();
      record.status = "running";
      const result = await context.spawn({
        ...record.request,
        prompt: input.message,
        history: record.messages,
      });
      record.result = result;
      if (result.messages.length > 0) record.messages = [...result.messages];
      record.status =
        result.reason === "end_turn" || result.reason === "stop_sequence" ? "completed" : "failed";
      const output = formatSubagentResult(result, {
        agent: record.agent,
        durationMs: performance.now() - started,
      });
      return { ...output, content: withAgentId(output.content, record.id) };
    },
  };
}
