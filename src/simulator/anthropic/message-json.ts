import type { PlannedBlock, PlannedTurn } from "../plan-turn.js";
import { SimScriptError } from "../script-error.js";
import type { SimUsage } from "../types.js";
import { citationOf, searchResultBlock, serverToolId } from "./stream-turn.js";

/**
 * The non-streaming Messages API response for a planned turn. A tool_use cut by max_tokens keeps its id and
 * name with `input: {}` (its input was never completed); a thinking block cut short has an empty signature.
 */
export function messageJson(
  content: unknown[],
  plan: PlannedTurn,
  message: { id: string; model: string; stopSequence: string | null },
  usage: SimUsage,
): unknown {
  return {
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    content,
    stop_reason: plan.stopReason,
    stop_sequence: message.stopSequence,
    usage: { ...usage, service_tier: "standard" },
  };
}

/** The response content blocks; throws SimScriptError for tool input that a JSON response cannot carry. */
export function messageContent(plan: PlannedTurn): unknown[] {
  return plan.blocks.flatMap((block) =>
    block.type === "web_search" ? [contentOf(block), searchResultBlock(block)] : [contentOf(block)],
  );
}

function contentOf(block: PlannedBlock): unknown {
  switch (block.type) {
    case "text":
      return block.citations?.length
        ? {
            type: "text",
            text: block.content,
            citations: block.citations.map((c) => citationOf(c, block.content)),
          }
        : { type: "text", text: block.content };
    case "web_search":
      return {
        type: "server_tool_use",
        id: serverToolId(block.id),
        name: "web_search",
        input: { query: block.query },
      };
    case "thinking":
      return {
        type: "thinking",
        thinking: block.content,
        signature: block.complete ? (block.signature ?? "") : "",
      };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      return {
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: block.complete ? parseInput(block) : {},
      };
  }
}

function parseInput(block: Extract<PlannedBlock, { type: "tool_use" }>): unknown {
  if (block.content === "") return {};
  try {
    return JSON.parse(block.content);
  } catch {
    throw new SimScriptError(
      `tool_use "${block.name}": scripted rawInput is not valid JSON, which a non-streaming response cannot carry ` +
        "(only a streamed eager tool can deliver invalid JSON)",
    );
  }
}
