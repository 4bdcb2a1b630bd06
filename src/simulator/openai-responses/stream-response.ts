import { chunkText } from "../chunk-text.js";
import type { PlannedTurn } from "../plan-turn.js";
import type { TurnTokens } from "../scripted-turn.js";
import { sleep } from "../sleep.js";
import type { SseWriter } from "../sse-writer.js";
import type { StreamPacing } from "../stream-pacing.js";
import { annotationsOf, contentPart, finishedItem, type ItemPlan } from "./response-items.js";
import { type ResponseIdentity, responseObject } from "./response-object.js";

export interface StreamResponseInput extends StreamPacing {
  plan: PlannedTurn;
  items: ItemPlan[];
  identity: ResponseIdentity;
  /** Undefined: the server reports no usage (`usage: null`). */
  tokens: TurnTokens | undefined;
  events: SseWriter;
}

/** One Responses SSE frame; `sequence_number` is the count of events sent before it. */
export function responsesFrame(type: string, sequence: number, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence })}\n\n`;
}

/**
 * Streams a planned turn as the Responses API does: response.created and .in_progress, then per output item
 * output_item.added, its deltas (reasoning_summary_text, output_text or refusal, function_call_arguments)
 * framed by their part / done events, output_item.done, and finally response.completed, or response.incomplete
 * (reason max_output_tokens) when the output limit cut the turn. A function call cut by the limit gets no
 * arguments .done and no output_item.done (its arguments never completed); the final response lists it with
 * status "incomplete". Stops quietly when the writer says the stream is over.
 */
export async function streamResponse(input: StreamResponseInput): Promise<void> {
  const { plan, items, identity, events } = input;
  const send = (type: string, data: Record<string, unknown>) =>
    events.send(responsesFrame(type, events.events, data));
  if (!send("response.created", { response: responseObject(identity, "in_progress", [], undefined) })) return;
  if (!send("response.in_progress", { response: responseObject(identity, "in_progress", [], undefined) }))
    return;
  for (const [index, item] of items.entries()) {
    if (!(await streamItem(input, item, index, send))) return;
    input.onGenerated(index);
  }
  const status = plan.stopReason === "max_tokens" ? "incomplete" : "completed";
  const response = responseObject(identity, status, items.map(finishedItem), input.tokens);
  if (!send(`response.${status}`, { response })) return;
  events.finish();
}

type Send = (type: string, data: Record<string, unknown>) => boolean;

async function streamItem(
  input: StreamResponseInput,
  item: ItemPlan,
  outputIndex: number,
  send: Send,
): Promise<boolean> {
  const { block } = item;
  const done = finishedItem(item);
  const at = { item_id: item.id, output_index: outputIndex };
  const pieces = (size: number) => chunkText(block.content, size);
  switch (block.type) {
    case "thinking":
    case "redacted_thinking": {
      if (!send("response.output_item.added", { output_index: outputIndex, item: { ...done, summary: [] } }))
        return false;
      if (block.content !== "") {
        const part = { ...at, summary_index: 0 };
        if (
          !send("response.reasoning_summary_part.added", {
            ...part,
            part: { type: "summary_text", text: "" },
          })
        )
          return false;
        for (const delta of pieces(input.textChunk)) {
          await sleep(input.delayMs);
          if (!send("response.reasoning_summary_text.delta", { ...part, delta })) return false;
        }
        if (!send("response.reasoning_summary_text.done", { ...part, text: block.content })) return false;
        if (
          !send("response.reasoning_summary_part.done", {
            ...part,
            part: { type: "summary_text", text: block.content },
          })
        ) {
          return false;
        }
      }
      return send("response.output_item.done", { output_index: outputIndex, item: done });
    }
    case "text": {
      const added = { ...done, status: "in_progress", content: [] };
      if (!send("response.output_item.added", { output_index: outputIndex, item: added })) return false;
      const part = { ...at, content_index: 0 };
      if (!send("response.content_part.added", { ...part, part: contentPart(item, "") })) return false;
      const kind = item.refusal ? "refusal" : "output_text";
      const extra = item.refusal ? {} : { logprobs: [] };
      for (const delta of pieces(input.textChunk)) {
        await sleep(input.delayMs);
        if (!send(`response.${kind}.delta`, { ...part, delta, ...extra })) return false;
      }
      for (const [annotation_index, annotation] of annotationsOf(item, block.content).entries()) {
        if (!send("response.output_text.annotation.added", { ...part, annotation_index, annotation }))
          return false;
      }
      const whole = item.refusal ? { refusal: block.content } : { text: block.content, logprobs: [] };
      if (!send(`response.${kind}.done`, { ...part, ...whole })) return false;
      if (!send("response.content_part.done", { ...part, part: contentPart(item, block.content) }))
        return false;
      return send("response.output_item.done", { output_index: outputIndex, item: done });
    }
    case "web_search": {
      const added = { ...done, status: "in_progress", action: { type: "search", query: block.query } };
      if (!send("response.output_item.added", { output_index: outputIndex, item: added })) return false;
      for (const step of ["in_progress", "searching", "completed"]) {
        await sleep(input.delayMs);
        if (!send(`response.web_search_call.${step}`, at)) return false;
      }
      return send("response.output_item.done", { output_index: outputIndex, item: done });
    }
    case "tool_use": {
      const added = { ...done, status: "in_progress", arguments: "" };
      if (!send("response.output_item.added", { output_index: outputIndex, item: added })) return false;
      for (const delta of pieces(input.inputChunk)) {
        await sleep(input.delayMs);
        if (!send("response.function_call_arguments.delta", { ...at, delta })) return false;
      }
      if (!block.complete) return true;
      if (!send("response.function_call_arguments.done", { ...at, arguments: block.content })) return false;
      return send("response.output_item.done", { output_index: outputIndex, item: done });
    }
  }
}
