import type { CacheControl, ContentBlock, Message } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";

/** Anthropic rejects a request with more `cache_control` markers than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

export interface CacheBreakpointOptions {
  /** "1h" needs Anthropic's extended-TTL support; default "5m" (sent without `ttl`). */
  ttl?: "5m" | "1h";
}

/** Where a marker sits: `system[i]`, `tools[i]`, `messages[i].content[j]`. */
export type BreakpointPosition =
  | { part: "system"; index: number }
  | { part: "tools"; index: number }
  | { part: "messages"; index: number; block: number };

/** Blocks Anthropic accepts `cache_control` on (thinking blocks and empty text cannot carry one). */
function cacheable(block: ContentBlock): boolean {
  switch (block.type) {
    case "text":
      return block.text !== "";
    case "image":
    case "tool_use":
    case "tool_result":
      return true;
    default:
      return false;
  }
}

function hasMarker(block: object): boolean {
  return "cache_control" in block && (block as { cache_control?: unknown }).cache_control !== undefined;
}

function lastCacheable(message: Message): number {
  for (let j = message.content.length - 1; j >= 0; j--) if (cacheable(message.content[j]!)) return j;
  return -1;
}

/** Every marker in a request, in wire order (tools, system, messages). */
export function findBreakpoints(request: ModelRequest): BreakpointPosition[] {
  const found: BreakpointPosition[] = [];
  for (const [index, tool] of request.tools.entries())
    if (hasMarker(tool)) found.push({ part: "tools", index });
  for (const [index, b] of request.system.entries()) if (hasMarker(b)) found.push({ part: "system", index });
  for (const [index, m] of request.messages.entries()) {
    for (const [block, b] of m.content.entries())
      if (hasMarker(b)) found.push({ part: "messages", index, block });
  }
  return found;
}

/**
 * A copy of `request` with Anthropic prompt-cache breakpoints; `request` itself (the stored history)
 * is never changed. At most 4 markers, in this order of priority while the budget lasts:
 *
 * 1. Markers the caller put on `system` or `tools` are kept as they are (more than 4 there is an error).
 * 2. The newest message's last cacheable block — the tail: this turn's whole prompt gets written.
 * 3. The last system block, and 4. the last tool, unless already marked — the stable prefix survives
 *    a change further down.
 * 5. One older message marker — the newest one already in history (normally the previous request's
 *    tail, since history is stored as sent), or else the last cacheable block of the previous user
 *    message. Anthropic looks back only about 20 blocks from a marker for an earlier hit; a turn with
 *    many parallel tool calls adds more than that, and this marker sits exactly on the previous
 *    request's cache entry, so it is still read.
 *
 * Every other marker in `messages` is removed. Moving markers does not break the cache: the cache key
 * is the content up to a block, not its `cache_control` (see `cacheView`), so the bytes that matter
 * are unchanged and the previous entry still matches.
 *
 * Anthropic requires 1h markers to come before 5m ones: a 1h marker after a 5m one (e.g. the caller
 * marked system with 5m and asked for `ttl: "1h"`) is sent as 5m rather than rejected.
 */
export function applyCacheBreakpoints(
  request: ModelRequest,
  options: CacheBreakpointOptions = {},
): ModelRequest {
  const marker: CacheControl =
    options.ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  const fixed = request.system.filter(hasMarker).length + request.tools.filter(hasMarker).length;
  if (fixed > MAX_CACHE_BREAKPOINTS) {
    throw new Error(
      `The request's system and tools already carry ${fixed} cache_control markers; Anthropic allows ${MAX_CACHE_BREAKPOINTS} in a request. Remove some.`,
    );
  }
  let budget = MAX_CACHE_BREAKPOINTS - fixed;
  const system = [...request.system];
  const tools = [...request.tools];
  const keep: Array<[message: number, block: number, control: CacheControl]> = [];

  const lastMessage = request.messages.length - 1;
  const tailBlock = lastMessage >= 0 ? lastCacheable(request.messages[lastMessage]!) : -1;
  if (tailBlock >= 0 && budget > 0) {
    keep.push([lastMessage, tailBlock, marker]);
    budget--;
  }
  const lastSystem = system.length - 1;
  if (lastSystem >= 0 && !hasMarker(system[lastSystem]!) && budget > 0) {
    system[lastSystem] = { ...system[lastSystem]!, cache_control: marker };
    budget--;
  }
  const lastTool = tools.length - 1;
  if (lastTool >= 0 && !hasMarker(tools[lastTool]!) && budget > 0) {
    tools[lastTool] = { ...tools[lastTool]!, cache_control: marker };
    budget--;
  }
  if (budget > 0) {
    const older = olderMarker(request.messages, tailBlock >= 0 ? lastMessage : request.messages.length);
    if (older)
      keep.push(
        older.existing ? [older.message, older.block, older.existing] : [older.message, older.block, marker],
      );
  }

  const messages = request.messages.map((message, index) => {
    const wanted = keep.filter(([m]) => m === index);
    const touched = message.content.some(hasMarker) || wanted.length > 0;
    if (!touched) return message;
    const content = message.content.map((block, j) => {
      const kept = wanted.find(([, b]) => b === j);
      if (kept) return { ...block, cache_control: kept[2] } as ContentBlock;
      if (!hasMarker(block)) return block;
      const { cache_control: _removed, ...rest } = block as ContentBlock & { cache_control?: CacheControl };
      return rest as ContentBlock;
    });
    return { ...message, content } as Message;
  });
  return orderTtls({ ...request, system, tools, messages });
}

/** Turns any 1h marker that follows a 5m marker (wire order: tools, system, messages) into 5m. Changes only copies. */
function orderTtls(request: ModelRequest): ModelRequest {
  let seen5m = false;
  const fix = <T extends object>(item: T): T => {
    const control = (item as { cache_control?: CacheControl }).cache_control;
    if (control === undefined) return item;
    if (control.ttl !== "1h") {
      seen5m = true;
      return item;
    }
    return seen5m ? { ...item, cache_control: { type: "ephemeral" } } : item;
  };
  const tools = request.tools.map(fix);
  const system = request.system.map(fix);
  const messages = request.messages.map((message) => {
    const content = message.content.map(fix);
    return content.every((b, i) => b === message.content[i]) ? message : ({ ...message, content } as Message);
  });
  return { ...request, tools, system, messages };
}

/** The newest existing marker before `before`, else the last cacheable block of the newest user message before it. */
function olderMarker(
  messages: readonly Message[],
  before: number,
): { message: number; block: number; existing?: CacheControl } | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const content = messages[i]!.content;
    for (let j = content.length - 1; j >= 0; j--) {
      const block = content[j]!;
      if (hasMarker(block) && cacheable(block)) {
        return { message: i, block: j, existing: (block as { cache_control: CacheControl }).cache_control };
      }
    }
  }
  for (let i = before - 1; i >= 0; i--) {
    if (messages[i]!.role !== "user") continue;
    const block = lastCacheable(messages[i]!);
    if (block >= 0) return { message: i, block };
  }
  return undefined;
}
