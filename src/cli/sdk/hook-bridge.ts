import { HOOK_EVENTS, type HookAnswer, type HookCallbacks, type HookEventName } from "../../hooks/index.js";
import type { ControlChannel } from "./control-channel.js";

/** A hook matcher of the `initialize` request: the app's callbacks, by id. */
export interface SdkHookMatcher {
  matcher?: string;
  hookCallbackIds: string[];
  /** Seconds. */
  timeout?: number;
}

/**
 * The app's hooks (`initialize.hooks`) as mitsu's hook callbacks: each callback id becomes a callback that sends a
 * `hook_callback` control request with the event's input (Claude Code's shape) and reads the app's answer as a
 * hook's JSON output. Events mitsu does not fire are returned by name, for the reply to say so.
 */
export function createHookBridge(
  hooks: Record<string, SdkHookMatcher[]> | undefined,
  channel: ControlChannel,
): { callbacks: HookCallbacks; unsupported: string[] } {
  const callbacks: HookCallbacks = {};
  const unsupported: string[] = [];
  for (const [event, matchers] of Object.entries(hooks ?? {})) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      unsupported.push(event);
      continue;
    }
    const list: Array<{
      matcher?: string;
      callback: (input: unknown, context: { signal: AbortSignal }) => Promise<HookAnswer | undefined>;
      timeoutMs?: number;
    }> = [];
    for (const matcher of Array.isArray(matchers) ? matchers : []) {
      for (const id of Array.isArray(matcher.hookCallbackIds) ? matcher.hookCallbackIds : []) {
        list.push({
          ...(typeof matcher.matcher === "string" && matcher.matcher !== ""
            ? { matcher: matcher.matcher }
            : {}),
          ...(typeof matcher.timeout === "number" ? { timeoutMs: matcher.timeout * 1000 } : {}),
          callback: async (input, { signal }) => {
            const answer = await channel.request(
              {
                subtype: "hook_callback",
                callback_id: id,
                input,
                ...(toolUseId(input) ? { tool_use_id: toolUseId(input) } : {}),
              },
              signal,
            );
            // `{async: true}`: the app answers later; mitsu goes on as with no answer.
            if (answer.async === true) return undefined;
            return answer as HookAnswer;
          },
        });
      }
    }
    (callbacks as Record<HookEventName, typeof list>)[event as HookEventName] = list;
  }
  return { callbacks, unsupported };
}

function toolUseId(input: unknown): string | undefined {
  const id = (input as { tool_use_id?: unknown } | null)?.tool_use_id;
  return typeof id === "string" ? id : undefined;
}
