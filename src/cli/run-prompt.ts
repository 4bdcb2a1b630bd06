import type { AgentEvent } from "../loop/agent-event.js";
import { type AgentResult, runAgent } from "../loop/run-agent.js";
import type { ContentBlock, Message } from "../messages/index.js";
import { clearSkillModel, skillModel } from "../skills/index.js";
import type { ModelChoice, Session } from "./build-session.js";

export interface RunPromptOptions {
  session: Session;
  /** The transcript so far (a resumed session), without the new prompt. */
  history: Message[];
  /** The user's message: text, or blocks (an attached image). */
  prompt: string | ContentBlock[];
  /** Another model for this prompt (a command's or skill's `model`); default the session's. */
  model?: ModelChoice;
  maxTurns: number;
  maxTokens?: number;
  signal?: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  onMessage?: (message: Message) => void;
  /** False when nobody shows tool input as it streams (json output). */
  liveInput?: boolean;
}

/** Runs one user prompt through the loop with the session's context, tools and permissions. */
export async function runPrompt(options: RunPromptOptions): Promise<AgentResult> {
  const { session } = options;
  const messages = appendPrompt(options.history, options.prompt);
  // A skill's model lasts for the run that loaded it, not for the prompts after.
  clearSkillModel(session.toolState);
  const chosen = new Map<string, ModelChoice | undefined>();
  const warnings: AgentEvent[] = [];
  const generator = runAgent({
    provider: options.model?.provider ?? session.provider,
    model: options.model?.model ?? session.model,
    system: session.context.system,
    tools: session.tools,
    messages,
    maxTurns: options.maxTurns,
    maxTokens:
      options.maxTokens ?? Math.min(options.model?.maxOutputTokens ?? session.maxOutputTokens, 32_000),
    canUseTool: session.canUseTool,
    toolState: session.toolState,
    selectModel: (state) => {
      const spec = skillModel(state);
      if (spec === undefined) return undefined;
      if (!chosen.has(spec)) {
        try {
          chosen.set(spec, session.modelFor(spec));
        } catch (error) {
          chosen.set(spec, undefined);
          warnings.push({
            type: "warning",
            turn: 0,
            code: "skill_model",
            message: `The skill's model ${JSON.stringify(spec)} cannot be used (${(error as Error).message}); the session's model goes on.`,
          });
        }
      }
      return chosen.get(spec);
    },
    prepareRequest: async (request, info) => {
      const before = session.context.warnings.length;
      const prepared = await session.context.prepareRequest(request, info);
      for (const w of session.context.warnings.slice(before)) {
        warnings.push({ type: "warning", turn: info.turn, code: w.code, message: w.message });
      }
      return prepared;
    },
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.liveInput !== undefined ? { liveInput: options.liveInput } : {}),
  });
  try {
    for (;;) {
      const next = await generator.next();
      for (const warning of warnings.splice(0)) options.onEvent(warning);
      if (next.done) return next.value;
      options.onEvent(next.value);
    }
  } finally {
    clearSkillModel(session.toolState);
  }
}

/**
 * Adds the prompt as a new user message, also after a user message (a run that was interrupted or failed
 * ends with one): the API accepts consecutive user messages, and the history as sent and as logged is never
 * rewritten, so the session log stays a faithful, append-only copy and the prompt cache still holds.
 */
export function appendPrompt(history: readonly Message[], prompt: string | ContentBlock[]): Message[] {
  const content: ContentBlock[] = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
  return [...history, { role: "user", content }];
}
