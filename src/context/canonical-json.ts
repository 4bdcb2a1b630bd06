import type { ContentBlock, Message, TextBlock, ToolDefinition } from "../messages/index.js";

/**
 * JSON with object keys sorted and `undefined` dropped: two values that a provider would encode to the
 * same wire bytes give the same string, whatever order their keys were built in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * A block as the prompt cache sees it: `cache_control` removed. Anthropic's cache key is the content
 * up to a block, not the markers: its lookback finds hits at earlier block boundaries that carry no
 * marker in the new request, which only works if the marker is not part of the cached bytes. Removed
 * only where a block carries it (also inside tool_result content), never from inside tool input or schemas.
 */
export function cacheView<T extends ContentBlock | TextBlock | ToolDefinition>(block: T): T {
  const nested = toolResultBlocks(block);
  if (!("cache_control" in block) && nested === undefined) return block;
  const { cache_control: _dropped, ...rest } = block as T & { cache_control?: unknown };
  if (nested !== undefined) return { ...rest, content: nested.map((b) => cacheView(b)) } as unknown as T;
  return rest as T;
}

function toolResultBlocks(block: ContentBlock | ToolDefinition): ContentBlock[] | undefined {
  if (!("type" in block) || block.type !== "tool_result" || typeof block.content === "string")
    return undefined;
  return block.content;
}

/** The canonical, marker-free text of one cached part: a system block, a tool, or a message block. */
export function cacheKeyOf(block: ContentBlock | TextBlock | ToolDefinition): string {
  return canonicalJson(cacheView(block));
}

/** A message's wire-relevant fields (role, content), marker-free. Transcript-only fields (usage, id) are not sent. */
export function messageKeyOf(message: Message): string {
  return canonicalJson({ role: message.role, content: message.content.map((b) => cacheView(b)) });
}
