import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { CodingAgent } from "../../harness/index.js";
import { addDirCommand } from "../conversation/add-dir-command.js";
import { contextReport, costReport } from "../conversation/session-status.js";
import { compactionNotice } from "../render/compaction-notice.js";
import { createStyle } from "../render/style.js";

/** The terminal's own commands that make sense in an editor's panel (the rest is the editor's: /clear is a new thread). */
export const BUILTIN_COMMANDS: AvailableCommand[] = [
  {
    name: "add-dir",
    description: "Add a folder to the workspace now (--remember saves it to .mitsu/settings.local.json)",
    input: { hint: "path [--remember]" },
  },
  {
    name: "compact",
    description: "Summarise the conversation so far to free the context window",
    input: { hint: "what to keep (optional)" },
  },
  { name: "context", description: "What the next request holds, part by part, and how full the window is" },
  { name: "cost", description: "What this session has cost: per call and per sub-agent" },
];

/**
 * Runs a built-in command (`/add-dir`, `/compact`, `/context`, `/cost`) and returns its text for the panel, or undefined
 * when `name` is none of them (a skill or command of that name wins: it is checked first by the caller).
 */
export async function runBuiltin(
  agent: CodingAgent,
  name: string,
  args: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  switch (name) {
    case "add-dir":
      // The user typing it in the editor's panel is the approval, as at the terminal.
      return addDirCommand(args, agent.folders, createStyle(false));
    case "compact": {
      if (agent.history.length < 2) return "Nothing to compact yet.";
      try {
        const done = await agent.compact(args || undefined, { signal });
        return `Compacted: ${compactionNotice({ ...done, after: done.messages.length })}`;
      } catch (error) {
        return `Compaction failed: ${(error as Error).message}`;
      }
    }
    case "context":
      return contextReport(agent);
    case "cost":
      return costReport(agent);
    default:
      return undefined;
  }
}
