import { chunkText } from "../chunk-text.js";
import type { TurnTokens } from "../scripted-turn.js";
import { sleep } from "../sleep.js";
import type { SseWriter } from "../sse-writer.js";
import type { StreamPacing } from "../stream-pacing.js";
import {
  functionCallPart,
  type GeminiPart,
  type GeminiTurn,
  geminiFinishReason,
  geminiResponse,
  groundingMetadata,
} from "./gemini-parts.js";

/** Gemini sends a function call whole, so `inputChunk` goes unused. */
export interface StreamGeminiInput extends StreamPacing {
  turn: GeminiTurn;
  tokens: TurnTokens | undefined;
  identity: { model: string; responseId: string };
  events: SseWriter;
}

/** One Gemini SSE frame: a `data:` line and the API's CRLF blank line. */
export function geminiFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

/**
 * Streams a turn as `streamGenerateContent?alt=sse` does: one chunk per text or thought piece, one per
 * functionCall (whole), then a last chunk with an empty text part and the finishReason. Every chunk carries the
 * turn's usageMetadata (the final counts). Stops quietly when the writer says the stream is over.
 */
export async function streamGemini(input: StreamGeminiInput): Promise<void> {
  const { turn, tokens, identity, events } = input;
  const send = (parts: GeminiPart[], finish?: string) =>
    events.send(
      geminiFrame(
        geminiResponse(parts, finish, tokens, identity, finish ? groundingMetadata(turn.plan) : undefined),
      ),
    );
  for (const [index, block] of turn.plan.blocks.entries()) {
    if (block.type === "text" || block.type === "thinking") {
      for (const piece of chunkText(block.content, input.textChunk)) {
        await sleep(input.delayMs);
        if (!send([block.type === "text" ? { text: piece } : { text: piece, thought: true }])) return;
      }
    } else if (block.type === "tool_use") {
      const part = functionCallPart(turn, index);
      await sleep(input.delayMs);
      if (part && !send([part])) return;
    }
    input.onGenerated(index);
  }
  if (!send([{ text: "" }], geminiFinishReason(turn.plan))) return;
  events.finish();
}
