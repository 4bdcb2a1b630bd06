import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { CodingAgent } from "../../harness/index.js";
import { BUILTIN_COMMANDS } from "./builtin-slash.js";

/** The slash commands a user may type in the editor: built-ins, skills, commands, and the MCP servers' prompts. */
export function availableCommands(agent: CodingAgent): AvailableCommand[] {
  const commands: AvailableCommand[] = [];
  const add = (name: string, description: string, hint?: string) =>
    commands.push({ name, description, ...(hint ? { input: { hint } } : {}) });
  for (const skill of agent.skills.skills) {
    if (skill.userInvocable) add(skill.name, skill.description, skill.argumentHint);
  }
  for (const command of agent.skills.commands)
    add(command.name, command.description ?? "", command.argumentHint);
  for (const prompt of agent.mcp?.servers.prompts ?? []) add(prompt.name, prompt.description);
  // A skill or command of a built-in's name takes its place, as at the terminal.
  const taken = new Set(commands.map((c) => c.name));
  return [...BUILTIN_COMMANDS.filter((c) => !taken.has(c.name)), ...commands];
}
