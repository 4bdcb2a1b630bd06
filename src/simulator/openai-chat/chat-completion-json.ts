import type { PlannedTurn } from "../plan-turn.js";
import type { TurnTokens } from "../scripted-turn.js";
import { chatUsage } from "./chat-usage.js";
import { finishReason } from "./finish-reason.js";

/** Identity of one completion, shared by its chunks. */
export interface ChatIdentity {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

/**
 * The non-streaming `chat.completion` for a planned turn: text blocks joined into `content` (null when there is
 * none), thinking joined into `reasoning_content` (the DeepSeek / vLLM extension; OpenAI itself returns no
 * reasoning text), tool calls with their arguments text as generated (a cut call keeps its partial arguments,
 * as the real API's truncated output does). Redacted thinking has no Chat Completions form and is left out.
 */
/** `tokens` undefined: a server that reports no usage (the answer has no `usage`). */
export function chatCompletionJson(
  plan: PlannedTurn,
  identity: ChatIdentity,
  tokens: TurnTokens | undefined,
): unknown {
  let text = "";
  let reasoning = "";
  const toolCalls: unknown[] = [];
  for (const block of plan.blocks) {
    if (block.type === "text") text += block.content;
    else if (block.type === "thinking") reasoning += block.content;
    else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: block.content },
      });
    }
  }
  const message: Record<string, unknown> = {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
  };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(plan.stopReason) }],
    ...(tokens ? { usage: chatUsage(tokens) } : {}),
    service_tier: "default",
    system_fingerprint: "fp_simulator",
  };
}
