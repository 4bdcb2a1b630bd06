import type { ModelRequest } from "../providers/provider.js";
import { cacheKeyOf } from "./canonical-json.js";

/** Whether a request extends the previous one, and if not, where it first departs from it. */
export interface PrefixReport {
  /** True when the previous request's model, tools, system and messages are a prefix of the new one. */
  ok: boolean;
  /**
   * The first difference in the prompt cache's order (model, tools, system, messages), e.g.
   * `system[1] changed`, `tools[3] removed`, `messages[4].content[0] changed`, `messages[2] removed`.
   */
  difference?: string;
  /**
   * Set when this request starts a new prefix epoch on purpose (the history was replaced, e.g. "compacted"):
   * it is not compared with the previous request, and `ok` is true — a new cache prefix, not a broken one.
   */
  epoch?: string;
}

/**
 * Compares two consecutive requests the way the prompt cache sees them: each part as canonical JSON
 * without `cache_control` (markers move every turn and are not part of the cache key; see
 * `applyCacheBreakpoints`). Anything else that differs means the previous request's cache entry
 * cannot be read, and the report names the first such block. A block that is the same object in both (all of
 * the history but the few copies that carry or lost a marker) is not serialised again, so a turn costs what
 * it adds, not the whole transcript.
 */
export function comparePrefix(previous: ModelRequest, next: ModelRequest): PrefixReport {
  const broken = (difference: string): PrefixReport => ({ ok: false, difference });
  if (previous.model !== next.model) return broken(`model changed (${previous.model} → ${next.model})`);
  if (previous.thinkingBudget !== next.thinkingBudget) return broken("thinkingBudget changed");

  // Anthropic renders tools, then system, then messages: a tool added at the end still moves every
  // byte after it, so `added` breaks the prefix for tools and system, not only `changed`.
  for (const [part, before, after] of [
    ["tools", previous.tools, next.tools],
    ["system", previous.system, next.system],
  ] as const) {
    for (let i = 0; i < before.length; i++) {
      const b = before[i]!;
      const a = after[i];
      if (a === undefined) return broken(`${part}[${i}] removed`);
      if (a !== b && !sameButMarkers(a, b) && cacheKeyOf(b) !== cacheKeyOf(a))
        return broken(`${part}[${i}] changed`);
    }
    if (after.length > before.length) return broken(`${part}[${before.length}] added`);
  }

  for (let i = 0; i < previous.messages.length; i++) {
    const b = previous.messages[i]!;
    const a = next.messages[i];
    if (a === undefined) return broken(`messages[${i}] removed`);
    if (a.role !== b.role) return broken(`messages[${i}] changed (role ${b.role} → ${a.role})`);
    for (let j = 0; j < b.content.length; j++) {
      const bb = b.content[j]!;
      const ab = a.content[j];
      if (ab === undefined) return broken(`messages[${i}].content[${j}] removed`);
      if (ab !== bb && !sameButMarkers(ab, bb) && cacheKeyOf(bb) !== cacheKeyOf(ab))
        return broken(`messages[${i}].content[${j}] changed`);
    }
    if (a.content.length > b.content.length)
      return broken(`messages[${i}].content[${b.content.length}] added`);
  }
  return { ok: true };
}

/**
 * Whether two blocks are the same but for `cache_control`, without serialising them: the same fields, each the
 * same value (by identity; a tool_result's content block by block). A block copied to move a marker (what
 * happens to the newest messages every turn) passes at once, however large its text: no 100 KB tool result is
 * serialised twice a turn. False only means "not shown equal": the caller then compares canonical JSON.
 */
function sameButMarkers(a: object, b: object): boolean {
  const keys = Object.keys(a).filter((key) => key !== "cache_control");
  if (keys.length !== Object.keys(b).filter((key) => key !== "cache_control").length) return false;
  for (const key of keys) {
    const x = (a as Record<string, unknown>)[key];
    const y = (b as Record<string, unknown>)[key];
    if (x === y) continue;
    if (key !== "content" || !Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      const u: unknown = x[i];
      const v: unknown = y[i];
      if (u === v) continue;
      if (typeof u !== "object" || typeof v !== "object" || u === null || v === null) return false;
      if (!sameButMarkers(u, v)) return false;
    }
  }
  return true;
}
