import type { CacheBlock } from "../cache-model.js";
import { imageReplacer } from "../image-weight.js";
import { contentBlocks } from "./validate-transcript.js";

/**
 * The request as the cache sees it: tools → system → messages, one CacheBlock per tool, per system block
 * and per message content block. A block's key is its JSON without `cache_control` (clients move the
 * marker to the newest message every turn; that must not change the cached bytes), and a message block's
 * key also carries its message index and role, so the message boundaries are part of the prefix.
 * A string system / content is the same as one text block, as the API treats it.
 * A cache_control inside a tool_result's content makes the tool_result block a breakpoint. An image counts
 * what Anthropic charges for it (width × height / 750 after scaling), not its base64 (see `imageStandIn`).
 */
export function cacheBlocks(
  body: { tools?: unknown; system?: unknown; messages: unknown[] },
  charsPerToken = 4,
): CacheBlock[] {
  const out: CacheBlock[] = [];
  const cacheBlock = (wrapper: Record<string, unknown>, block: unknown): CacheBlock => {
    const key = JSON.stringify(wrapper, replacer);
    const ttl = breakpointTtl(block);
    return ttl ? { key, breakpoint: ttl } : { key };
  };
  const replacer = imageReplacer("anthropic", charsPerToken);
  if (Array.isArray(body.tools))
    for (const tool of body.tools) out.push(cacheBlock({ tool: strip(tool) }, tool));
  const system =
    typeof body.system === "string" && body.system !== ""
      ? [{ type: "text", text: body.system }]
      : body.system;
  if (Array.isArray(system))
    for (const block of system) out.push(cacheBlock({ system: strip(block) }, block));
  for (const [m, message] of body.messages.entries()) {
    const { role, content } = message as { role?: unknown; content?: unknown };
    for (const block of contentBlocks(content) ?? [])
      out.push(cacheBlock({ m, role, block: strip(block) }, block));
  }
  return out;
}

function breakpointTtl(block: unknown): "5m" | "1h" | undefined {
  if (!block || typeof block !== "object") return undefined;
  const { cache_control, type, content } = block as {
    cache_control?: unknown;
    type?: unknown;
    content?: unknown;
  };
  if (cache_control && typeof cache_control === "object") {
    return (cache_control as { ttl?: unknown }).ttl === "1h" ? "1h" : "5m";
  }
  if (type === "tool_result" && Array.isArray(content)) {
    const inner = content.map(breakpointTtl).filter((t) => t !== undefined);
    if (inner.length > 0) return inner.includes("1h") ? "1h" : "5m";
  }
  return undefined;
}

/** The block without its own cache_control (and a tool_result's inner blocks without theirs); nothing else. */
function strip(block: unknown): unknown {
  if (!block || typeof block !== "object" || Array.isArray(block)) return block;
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  if (rest.type === "tool_result" && Array.isArray(rest.content)) rest.content = rest.content.map(strip);
  return rest;
}
