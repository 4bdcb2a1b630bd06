import { chunkText } from "../chunk-text.js";
import type { PlannedBlock, PlannedTurn } from "../plan-turn.js";
import { sleep } from "../sleep.js";
import type { StreamPacing } from "../stream-pacing.js";
import type { SimUsage } from "../types.js";
import type { AnthropicEventWriter } from "./event-writer.js";

export interface StreamTurnInput extends StreamPacing {
  plan: PlannedTurn;
  message: { id: string; model: string; stopSequence: string | null };
  usage: SimUsage;
  /** Tools whose input streams as generated; the others are released whole at block end. */
  eager: ReadonlySet<string>;
  events: AnthropicEventWriter;
}

/**
 * Streams a planned turn as the Messages API does: message_start, per block content_block_start (a ping after
 * the first), deltas `delayMs` apart, content_block_stop (none for a tool_use cut by max_tokens), then
 * message_delta and message_stop. Stops quietly when the writer says the stream is over.
 */
export async function streamTurn(input: StreamTurnInput): Promise<void> {
  const { plan, message, usage, events } = input;
  const started = events.send("message_start", {
    type: "message_start",
    message: {
      id: message.id,
      type: "message",
      role: "assistant",
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens), service_tier: "standard" },
    },
  });
  if (!started) return;
  for (const [index, block] of plan.blocks.entries()) {
    if (
      !events.send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: startOf(block),
      })
    ) {
      return;
    }
    if (index === 0 && !events.send("ping", { type: "ping" })) return;
    if (!(await streamBlock(input, index, block))) return;
    if (block.type === "tool_use" && !block.complete) continue;
    if (!events.send("content_block_stop", { type: "content_block_stop", index })) return;
  }
  const { cache_creation: _split, ...counters } = usage;
  const delta = { stop_reason: plan.stopReason, stop_sequence: message.stopSequence };
  if (!events.send("message_delta", { type: "message_delta", delta, usage: counters })) return;
  if (!events.send("message_stop", { type: "message_stop" })) return;
  events.finish();
}

function startOf(block: PlannedBlock): unknown {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

async function streamBlock(input: StreamTurnInput, index: number, block: PlannedBlock): Promise<boolean> {
  const { events, delayMs } = input;
  const delta = (d: unknown) =>
    events.send("content_block_delta", { type: "content_block_delta", index, delta: d });
  switch (block.type) {
    case "text":
    case "thinking": {
      for (const piece of chunkText(block.content, input.textChunk)) {
        await sleep(delayMs);
        const ok = delta(
          block.type === "text"
            ? { type: "text_delta", text: piece }
            : { type: "thinking_delta", thinking: piece },
        );
        if (!ok) return false;
      }
      input.onGenerated(index);
      if (block.type === "thinking" && block.complete && block.signature !== undefined) {
        return delta({ type: "signature_delta", signature: block.signature });
      }
      return true;
    }
    case "redacted_thinking":
      input.onGenerated(index);
      return true;
    case "tool_use": {
      const pieces = chunkText(block.content, input.inputChunk);
      const json = (partial_json: string) => delta({ type: "input_json_delta", partial_json });
      if (input.eager.has(block.name)) {
        // Eager: fragments go out as they are generated, unvalidated.
        if (!json("")) return false;
        for (const piece of pieces) {
          await sleep(delayMs);
          if (!json(piece)) return false;
        }
        input.onGenerated(index);
        return true;
      }
      // Buffered: the API holds the input until the block is generated and validated, then releases it.
      for (let i = 0; i < pieces.length; i++) await sleep(delayMs);
      input.onGenerated(index);
      if (!json("")) return false;
      return pieces.every((piece) => json(piece));
    }
  }
}
