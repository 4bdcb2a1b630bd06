import type { AgentEvent } from "../loop/agent-event.js";
import { type AgentResult, runAgent } from "../loop/run-agent.js";
import type { Message, TextBlock } from "../messages/index.js";
import type { Session } from "./build-session.js";

export interface RunPromptOptions {
  session: Session;
  /** The transcript so far (a resumed session), without the new prompt. */
  history: Message[];
  prompt: string;
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
  const generator = runAgent({
    provider: session.provider,
    model: session.model,
    system: session.context.system,
    tools: session.tools,
    messages,
    maxTurns: options.maxTurns,
    maxTokens: options.maxTokens ?? Math.min(session.maxOutputTokens, 32_000),
    canUseTool: session.canUseTool,
    toolState: session.toolState,
    spawn: session.spawn,
    prepareRequest: (request, info) => session.context.prepareRequest(request, info),
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.liveInput !== undefined ? { liveInput: options.liveInput } : {}),
  });
  for (;;) {
    const next = await generator.next();
    if (next.done) return next.value;
    options.onEvent(next.value);
  }
}

/**
 * Adds the prompt as a new user message, also after a user message (a run that was interrupted or failed
 * ends with one): the API accepts consecutive user messages, and the history as sent and as logged is never
 * rewritten, so the session log stays a faithful, append-only copy and the prompt cache still holds.
 */
export function appendPrompt(history: readonly Message[], prompt: string): Message[] {
  const text: TextBlock = { type: "text", text: prompt };
  return [...history, { role: "user", content: [text] }];
}
