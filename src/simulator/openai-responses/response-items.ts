import type { PlannedBlock, PlannedTurn } from "../plan-turn.js";

/** A planned block with the ids of the output item it becomes. */
export interface ItemPlan {
  block: PlannedBlock;
  /** `rs_…`, `msg_…` or `fc_…`. */
  id: string;
  /** Text goes out as a `refusal` content part (the turn's stop reason is refusal). */
  refusal: boolean;
  /** A web search lists its pages (`include: ["web_search_call.action.sources"]` was asked). */
  sources: boolean;
}

/** Gives every planned block its output item id. */
export function itemPlans(
  plan: PlannedTurn,
  nextId: (prefix: string) => string,
  include: readonly unknown[] = [],
): ItemPlan[] {
  const refusal = plan.stopReason === "refusal";
  const sources = include.includes("web_search_call.action.sources");
  return plan.blocks.map((block) => ({ block, id: nextId(ITEM_PREFIX[block.type]), refusal, sources }));
}

const ITEM_PREFIX: Record<PlannedBlock["type"], string> = {
  thinking: "rs_",
  redacted_thinking: "rs_",
  text: "msg_",
  tool_use: "fc_",
  web_search: "ws_",
};

/**
 * The finished output item of a block:
 * - thinking → a `reasoning` item: its text as one `summary_text`, its signature (or, without one, an opaque
 *   stand-in) as `encrypted_content`; redacted thinking → a reasoning item with no summary whose
 *   `encrypted_content` is the redacted data;
 * - text → an assistant `message` with one `output_text` part (a `refusal` part when the turn is a refusal);
 * - tool_use → a `function_call` with the arguments text as generated.
 * A block cut by the output limit has status "incomplete".
 */
export function finishedItem(item: ItemPlan): Record<string, unknown> {
  const { block, id } = item;
  switch (block.type) {
    case "thinking":
      return {
        id,
        type: "reasoning",
        summary: block.content === "" ? [] : [{ type: "summary_text", text: block.content }],
        encrypted_content: encryptedContent(block.content, block.signature),
      };
    case "redacted_thinking":
      return { id, type: "reasoning", summary: [], encrypted_content: block.data };
    case "text":
      return {
        id,
        type: "message",
        status: block.complete ? "completed" : "incomplete",
        content: [contentPart(item, block.content)],
        role: "assistant",
      };
    case "web_search":
      return {
        id,
        type: "web_search_call",
        status: block.errorCode === undefined ? "completed" : "failed",
        action: {
          type: "search",
          query: block.query,
          ...(item.sources
            ? { sources: block.results.map((result) => ({ type: "url", url: result.url })) }
            : {}),
        },
      };
    case "tool_use":
      return {
        id,
        type: "function_call",
        status: block.complete ? "completed" : "incomplete",
        arguments: block.content,
        call_id: block.id,
        name: block.name,
      };
  }
}

/** A message's content part with `text` in it (empty when it opens). */
export function contentPart(item: ItemPlan, text: string): Record<string, unknown> {
  return item.refusal
    ? { type: "refusal", refusal: text }
    : { type: "output_text", annotations: annotationsOf(item, text), logprobs: [], text };
}

/** A text's citations as `url_citation` annotations over the whole text (none while the part opens empty). */
export function annotationsOf(item: ItemPlan, text: string): Array<Record<string, unknown>> {
  if (item.block.type !== "text" || text === "") return [];
  return (item.block.citations ?? []).map((citation) => ({
    type: "url_citation",
    start_index: 0,
    end_index: text.length,
    url: citation.url,
    title: citation.title ?? "",
  }));
}

/** The opaque reasoning state: the scripted signature, else a stand-in derived from the text. */
export function encryptedContent(thinking: string, signature: string | undefined): string {
  return signature ?? `sim_${Buffer.from(thinking, "utf8").toString("base64url")}`;
}
