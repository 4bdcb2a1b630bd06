import type { HookRunner } from "../hooks/create-hook-runner.js";
import type { SpawnOrigin, SpawnRequest } from "../loop/spawn.js";

/**
 * Runs the SubagentStart hooks for a sub-agent about to start (Claude Code's event: `agent_id`, `agent_type`, the
 * matcher against the type) and hands their context to the sub-agent, after its prompt, as a system reminder.
 */
export async function withSubagentStartContext(
  hooks: HookRunner,
  request: SpawnRequest,
  origin: SpawnOrigin,
): Promise<SpawnRequest> {
  const type = request.agent ?? "general-purpose";
  if (!hooks.has("SubagentStart", type)) return request;
  const started = await hooks.run(
    "SubagentStart",
    { agent_id: origin.agentPath.at(-1) ?? "", agent_type: type },
    { signal: origin.signal },
  );
  if (started.context.length === 0) return request;
  return {
    ...request,
    prompt: `${request.prompt}\n\n<system-reminder>\nContext from hooks:\n${started.context.join("\n")}\n</system-reminder>`,
  };
}
