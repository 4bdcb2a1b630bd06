import { chunkText } from "../chunk-text.js";
import type { PlannedBlock, PlannedTurn } from "../plan-turn.js";
import { sleep } from "../sleep.js";
import type { StreamPacing } from "../stream-pacing.js";
import type { SimCitation, SimUsage } from "../types.js";
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
  // The wire index: a web search is two content blocks (the call and its result).
  let index = 0;
  for (const [planIndex, block] of plan.blocks.entries()) {
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
    if (!(await streamBlock(input, index, planIndex, block))) return;
    if (block.type === "tool_use" && !block.complete) continue;
    if (!events.send("content_block_stop", { type: "content_block_stop", index })) return;
    index++;
    if (block.type === "web_search") {
      const result = { type: "content_block_start", index, content_block: searchResultBlock(block) };
      if (!events.send("content_block_start", result)) return;
      if (!events.send("content_block_stop", { type: "content_block_stop", index })) return;
      index++;
    }
  }
  const { cache_creation: _split, ...counters } = usage;
  const searches = plan.blocks.filter((block) => block.type === "web_search").length;
  if (searches > 0) Object.assign(counters, { server_tool_use: { web_search_requests: searches } });
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
    case "web_search":
      return { type: "server_tool_use", id: serverToolId(block.id), name: "web_search", input: {} };
  }
}

/** Anthropic's server tool ids start with `srvtoolu_`. */
export function serverToolId(id: string): string {
  return id.startsWith("toolu_") ? `srv${id}` : id;
}

/** The `web_search_tool_result` block of a search: its results (with opaque content), or its error. */
export function searchResultBlock(block: Extract<PlannedBlock, { type: "web_search" }>): unknown {
  const content =
    block.errorCode !== undefined
      ? { type: "web_search_tool_result_error", error_code: block.errorCode }
      : block.results.map((result) => ({
          type: "web_search_result",
          url: result.url,
          title: result.title,
          encrypted_content: Buffer.from(`sim:${result.url}`, "utf8").toString("base64"),
          page_age: result.pageAge ?? null,
        }));
  return { type: "web_search_tool_result", tool_use_id: serverToolId(block.id), content };
}

/** A text block's citation in Anthropic's `web_search_result_location` shape. */
export function citationOf(citation: SimCitation, text: string): unknown {
  return {
    type: "web_search_result_location",
    cited_text: citation.citedText ?? text.slice(0, 150),
    url: citation.url,
    title: citation.title ?? null,
    encrypted_index: Buffer.from(`sim:${citation.url}`, "utf8").toString("base64"),
  };
}

async function streamBlock(
  input: StreamTurnInput,
  index: number,
  planIndex: number,
  block: PlannedBlock,
): Promise<boolean> {
  const { events, delayMs } = input;
  const delta = (d: unknown) =>
    events.send("content_block_delta", { type: "content_block_delta", index, delta: d });
  switch (block.type) {
    case "text":
    case "thinking": {
      // Citations come first, each as its own delta, then the text they support.
      for (const citation of block.type === "text" ? (block.citations ?? []) : []) {
        if (!delta({ type: "citations_delta", citation: citationOf(citation, block.content) })) return false;
      }
      for (const piece of chunkText(block.content, input.textChunk)) {
        await sleep(delayMs);
        const ok = delta(
          block.type === "text"
            ? { type: "text_delta", text: piece }
            : { type: "thinking_delta", thinking: piece },
        );
        if (!ok) return false;
      }
      input.onGenerated(planIndex);
      if (block.type === "thinking" && block.complete && block.signature !== undefined) {
        return delta({ type: "signature_delta", signature: block.signature });
      }
      return true;
    }
    case "redacted_thinking":
      input.onGenerated(planIndex);
      return true;
    case "web_search": {
      // The server tool's input is generated by the model and streamed like a tool's.
      if (!delta({ type: "input_json_delta", partial_json: "" })) return false;
      for (const piece of chunkText(block.content, input.inputChunk)) {
        await sleep(delayMs);
        if (!delta({ type: "input_json_delta", partial_json: piece })) return false;
      }
      input.onGenerated(planIndex);
      return true;
    }
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
        input.onGenerated(planIndex);
        return true;
      }
      // Buffered: the API holds the input until the block is generated and validated, then releases it.
      for (let i = 0; i < pieces.length; i++) await sleep(delayMs);
      input.onGenerated(planIndex);
      if (!json("")) return false;
      return pieces.every((piece) => json(piece));
    }
  }
}
