import type { CodingAgent, ModelChoice } from "../../harness/index.js";
import type { ContentBlock } from "../../messages/index.js";
import { findSlashTarget, parseSlash } from "../../skills/index.js";
import { preparePrompt } from "../conversation/prepare-prompt.js";

/** What one user message of the app asks for. */
export type SdkPrompt =
  | { kind: "prompt"; prompt: string | ContentBlock[]; model?: ModelChoice }
  /** `/compact [focus]` and `/clear`: done without a model turn of the conversation. */
  | { kind: "compact"; focus: string }
  | { kind: "clear" }
  | { kind: "error"; error: string };

/**
 * A user message as Claude Code reads one: `/compact` and `/clear`, an MCP server's prompt, a command or skill
 * (expanded with its `!`command`` and `@file` under the permission rules), or text whose `@file` references are
 * inlined — only files the file tools may reach, as in print mode. Blocks are sent as they are.
 */
export async function prepareSdkPrompt(
  agent: CodingAgent,
  content: string | ContentBlock[],
  options: { cwd: string; signal: AbortSignal },
): Promise<SdkPrompt> {
  if (typeof content !== "string") return { kind: "prompt", prompt: content };
  const slash = parseSlash(content);
  if (slash?.name === "compact") return { kind: "compact", focus: slash.args };
  if (slash?.name === "clear") return { kind: "clear" };
  let target: Parameters<typeof preparePrompt>[2];
  if (slash) {
    const expansion = agent.expandSlash(content);
    if (expansion.kind === "mcp-prompt") {
      try {
        return { kind: "prompt", prompt: await expansion.expand(options.signal) };
      } catch (error) {
        return { kind: "error", error: (error as Error).message };
      }
    }
    const found = findSlashTarget(slash.name, agent.skills);
    if (!found) return { kind: "error", error: `Unknown slash command: /${slash.name}` };
    target = { target: found, args: slash.args };
  }
  const prepared = await preparePrompt(agent, content, target, { ...options, confine: true });
  if ("error" in prepared) return { kind: "error", error: prepared.error };
  return { kind: "prompt", prompt: prepared.prompt, ...(prepared.model ? { model: prepared.model } : {}) };
}
