import type { HookJudge } from "../hooks/index.js";
import { runAgentToEnd } from "../loop/run-agent.js";
import type { Tool } from "../loop/tool.js";
import type { PermissionChecker } from "../permissions/index.js";
import type { Provider } from "../providers/provider.js";
import type { ModelSetup } from "./model-setup.js";

/** The only tools an agent hook's sub-agent gets: it looks, it never changes anything. */
export const AGENT_HOOK_TOOLS: readonly string[] = ["Read", "Grep", "Glob"];
/** Claude Code's bound on an agent hook's turns. */
const MAX_AGENT_HOOK_TURNS = 50;

const SYSTEM = `You are a hook of the mitsu coding agent: you check whether a condition holds in the user's workspace before mitsu goes on. You may look with Read, Grep and Glob; you cannot change anything, and no one will answer questions. Look only as far as the condition needs, then give your verdict as the prompt asks.`;

/**
 * The model a `prompt` or `agent` hook runs on: the hook's `model` (resolved as a command's `model` is), or the
 * session's helper model (the small model of its provider), as Claude Code uses a fast model.
 */
export function hookModel(
  models: ModelSetup,
  model: string | undefined,
): { provider: Provider; model: string } {
  const chosen = model ? models.modelFor(model) : undefined;
  return chosen ?? { provider: models.resolved.wireProvider, model: models.helper };
}

/**
 * The judge of `type: "agent"` hooks (Claude Code's agent-based hooks): a small sub-agent, on the hook's `model` or
 * the session's helper model, with only Read, Grep and Glob — the workspace's own tools, so they stay inside it and
 * Grep and Glob leave out what Read deny rules cover — and a check that refuses what a deny rule or plan mode
 * refuses and what would be asked (an ask rule), and never asks anyone. Its tools are the bare ones: no hook runs on its calls (an agent hook on
 * PreToolUse would otherwise set off itself). Its final text is the answer `runPromptHook` reads.
 */
export function hookAgent(
  models: ModelSetup,
  tools: () => readonly Tool<never>[],
  permissions: () => PermissionChecker | undefined,
): HookJudge {
  return async (prompt, { model, signal }) => {
    const chosen = hookModel(models, model);
    const own = tools().filter((tool) => AGENT_HOOK_TOOLS.includes(tool.name));
    const result = await runAgentToEnd({
      provider: chosen.provider,
      model: chosen.model,
      system: SYSTEM,
      tools: own,
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      maxTurns: MAX_AGENT_HOOK_TURNS,
      maxTokens: 4096,
      signal,
      canUseTool: async (tool, input) => {
        if (!AGENT_HOOK_TOOLS.includes(tool.name)) {
          return { behavior: "deny", message: `An agent hook may only use ${AGENT_HOOK_TOOLS.join(", ")}.` };
        }
        // What would be asked is refused: an ask rule (`Read(./.env)`) holds for a judge whose prompt carries the
        // tool input the model wrote, and which no one watches.
        const denial = await permissions()?.unaskedRefusal(tool, input);
        return denial ? { behavior: "deny", message: denial } : { behavior: "allow" };
      },
    });
    if (result.reason === "error") throw new Error(result.error?.message ?? "the agent hook's run failed");
    const last = result.lastMessage?.content ?? [];
    return last.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  };
}
