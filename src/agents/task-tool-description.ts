import type { AgentDefinition } from "./agent-definition.js";

/**
 * The Task tool's description: what a sub-agent is, the agents (`name: description`, in the given order, so the
 * text is the same byte for byte on every run with the same definitions), when delegating pays, and that the
 * sub-agent knows nothing but the prompt.
 */
export function taskToolDescription(agents: readonly AgentDefinition[]): string {
  const list = agents.map((agent) => `- ${agent.name}: ${oneLine(agent.description)}`).join("\n");
  return `Starts a sub-agent: a separate agent with its own instructions and tools that works on one task on its own, then returns only its final answer as this tool's result.

Available agents (subagent_type: when to use it):
${list || "(none)"}

When delegating pays:
- A wide search or investigation whose intermediate output you do not need (many files read, many searches): the sub-agent's reading stays out of your context; only its answer comes back.
- Independent pieces of work: call Task several times in one message and the sub-agents run at the same time.
- Not for reading one known file or finding one known name: Read, Grep or Glob directly is faster.

How to use it:
- The sub-agent sees nothing of this conversation. Write the prompt as a complete brief: the goal, what you already know, where to look, and exactly what it should report back.
- Say whether it should change code or only research.
- Its answer is not shown to the user: tell the user what matters from it.`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
