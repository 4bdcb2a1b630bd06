import type { Message } from "../../messages/index.js";
import { newToolUseId } from "./new-id.js";

/**
 * Keeps the tool-use ids of a conversation unique. A server that reuses an id (an OpenAI-compatible server giving
 * every call `call_0`) would otherwise have two calls share one result, and the transcript checker would refuse
 * every later request. The id the server sent is kept whenever it is unique; a repeat becomes `<id>_2`, `<id>_3`…
 * (the first free one), which the adapters send back like any other id.
 */
export class UniqueToolIds {
  private readonly used: Set<string>;

  /** `used`: ids the conversation already holds (the request's history). */
  constructor(used: Iterable<string> = []) {
    this.used = new Set(used);
  }

  /** The id to give a new call whose wire id is `id` (empty: the server gave none, a fresh one is made). */
  take(id: string): string {
    let out = id;
    if (out === "") {
      do out = newToolUseId();
      while (this.used.has(out));
    } else {
      for (let n = 2; this.used.has(out); n++) out = `${id}_${n}`;
    }
    this.used.add(out);
    return out;
  }
}

/** Every `tool_use` id in the history (the ids a new call must not take). */
export function toolUseIdsOf(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "tool_use") ids.add(block.id);
  }
  return ids;
}
