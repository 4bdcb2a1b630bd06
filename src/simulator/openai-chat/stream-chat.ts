import { chunkText } from "../chunk-text.js";
import type { PlannedBlock, PlannedTurn } from "../plan-turn.js";
import type { TurnTokens } from "../scripted-turn.js";
import { sleep } from "../sleep.js";
import type { SseWriter } from "../sse-writer.js";
import type { StreamPacing } from "../stream-pacing.js";
import type { ChatIdentity } from "./chat-completion-json.js";
import { chatUsage } from "./chat-usage.js";
import { finishReason } from "./finish-reason.js";

export interface StreamChatInput extends StreamPacing {
  plan: PlannedTurn;
  identity: ChatIdentity;
  /** Undefined: the server reports no usage (no usage chunk even when asked for). */
  tokens: TurnTokens | undefined;
  /** `stream_options.include_usage`: `usage: null` on every chunk and a final usage chunk with `choices: []`. */
  includeUsage: boolean;
  events: SseWriter;
}

/** The last frame of a Chat Completions stream. */
export const DONE_FRAME = "data: [DONE]\n\n";

/**
 * Streams a planned turn as `chat.completion.chunk`s: a role chunk, `content` deltas for text,
 * `reasoning_content` deltas for thinking (DeepSeek / vLLM style; OpenAI sends none), tool calls one index
 * after another (`id`, `type` and `name` only in an index's first fragment, then `arguments` pieces), a chunk
 * with `finish_reason`, the usage chunk when asked for, then `[DONE]`. Stops quietly when the writer says the
 * stream is over.
 */
export async function streamChat(input: StreamChatInput): Promise<void> {
  const { plan, identity, events, includeUsage } = input;
  const frame = (choices: unknown[], usage: unknown = null) => {
    const chunk: Record<string, unknown> = {
      id: identity.id,
      object: "chat.completion.chunk",
      created: identity.created,
      model: identity.model,
      service_tier: "default",
      system_fingerprint: "fp_simulator",
      choices,
    };
    if (includeUsage) chunk.usage = usage;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  };
  const delta = (d: unknown, finish: string | null = null) =>
    events.send(frame([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]));

  const toolFirst = plan.blocks[0]?.type === "tool_use";
  if (!delta({ role: "assistant", content: toolFirst ? null : "", refusal: null })) return;
  let toolIndex = 0;
  for (const [index, block] of plan.blocks.entries()) {
    const ok = await streamBlock(input, block, block.type === "tool_use" ? toolIndex++ : -1, delta);
    if (!ok) return;
    input.onGenerated(index);
  }
  if (!delta({}, finishReason(plan.stopReason))) return;
  if (includeUsage && input.tokens && !events.send(frame([], chatUsage(input.tokens)))) return;
  events.finish(DONE_FRAME);
}

async function streamBlock(
  input: StreamChatInput,
  block: PlannedBlock,
  toolIndex: number,
  delta: (d: unknown) => boolean,
): Promise<boolean> {
  switch (block.type) {
    case "text":
    case "thinking":
      for (const piece of chunkText(block.content, input.textChunk)) {
        await sleep(input.delayMs);
        if (!delta(block.type === "text" ? { content: piece } : { reasoning_content: piece })) return false;
      }
      return true;
    case "web_search": // Refused before planning: Chat Completions has no server tools.
    case "redacted_thinking":
      return true;
    case "tool_use": {
      const head = {
        index: toolIndex,
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: "" },
      };
      if (!delta({ tool_calls: [head] })) return false;
      for (const piece of chunkText(block.content, input.inputChunk)) {
        await sleep(input.delayMs);
        if (!delta({ tool_calls: [{ index: toolIndex, function: { arguments: piece } }] })) return false;
      }
      return true;
    }
  }
}
