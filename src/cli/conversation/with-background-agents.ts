import type { AgentRecord, BackgroundAgents } from "../../agents/index.js";
import type { AgentEvent, AgentResult } from "../../loop/agent-event.js";

/** The prompt of a turn the front-end starts because background agents finished while the agent was idle. */
export function finishedPrompt(records: readonly AgentRecord[]): string {
  const names = records.map((r) => `${r.id} (${r.agent}: ${r.description}, ${r.status})`).join(", ");
  return `Background agent${records.length === 1 ? "" : "s"} finished: ${names}. Their reports are above; go on with the task.`;
}

/**
 * Runs a prompt and then, while background agents are running, waits for them: each time some end while the
 * main agent is idle, a turn says so (their answers ride in on it as reminders), as Claude Code does. Yields
 * every event; returns the last turn's result. With `wait` false it is the prompt alone.
 */
export async function* withBackgroundAgents(
  first: AsyncGenerator<AgentEvent, AgentResult>,
  next: (prompt: string) => AsyncGenerator<AgentEvent, AgentResult>,
  agents: BackgroundAgents | undefined,
  options: { wait: boolean; signal?: AbortSignal },
): AsyncGenerator<AgentEvent, AgentResult> {
  let result = yield* first;
  if (!agents || !options.wait) return result;
  for (;;) {
    if (result.reason !== "end_turn" && result.reason !== "stop_sequence") return result;
    if (agents.undelivered().length === 0) {
      if (agents.running().length === 0 || options.signal?.aborted) return result;
      await agents.waitAny(options.signal);
      if (options.signal?.aborted) return result;
      continue;
    }
    result = yield* next(finishedPrompt(agents.undelivered()));
  }
}

/** `MITSU_BACKGROUND_WAIT=0`: print mode does not wait for background agents (they stop with the process). */
export function waitsForBackgroundAgents(env: NodeJS.ProcessEnv): boolean {
  const value = env.MITSU_BACKGROUND_WAIT;
  return value === undefined || !/^(0|false|no|off)$/i.test(value.trim());
}
