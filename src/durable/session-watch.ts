import * as restate from "@restatedev/restate-sdk";
import { jsonCall, jsonSerde } from "./json-serde.js";

/** The name of the object that wakes a session's followers (`mitsu remote follow`). */
export function watchName(sessionObject: string): string {
  return `${sessionObject}-watch`;
}

const WAITING = "waiting";

/**
 * The followers of a session's events: a virtual object keyed like the session, whose state lists the awakeables
 * of the `events` calls waiting for the session's next event. `register` adds one; `notify` (sent by the session
 * when a message is stored, a question asked, a run ended) resolves them all. Called by the session's own
 * handlers only.
 */
export function createSessionWatch(sessionObject: string) {
  return restate.object({
    name: watchName(sessionObject),
    options: { ingressPrivate: true },
    handlers: {
      register: async (ctx: restate.ObjectContext, awakeableId: string): Promise<void> => {
        const waiting = (await ctx.get<string[]>(WAITING)) ?? [];
        ctx.set(WAITING, [...waiting, awakeableId]);
      },
      notify: async (ctx: restate.ObjectContext): Promise<void> => {
        const waiting = (await ctx.get<string[]>(WAITING)) ?? [];
        if (waiting.length === 0) return;
        for (const id of waiting) ctx.resolveAwakeable(id, null);
        ctx.clear(WAITING);
      },
    },
  });
}

/**
 * Wakes the followers of the session (`key`, default the one `ctx` runs): a one-way message, the session does
 * not wait for it.
 */
export function notifyFollowers(ctx: restate.ObjectContext, sessionObject: string, key = ctx.key): void {
  ctx.genericSend<undefined>({
    service: watchName(sessionObject),
    method: "notify",
    key,
    parameter: undefined,
    inputSerde: jsonSerde(),
  });
}

/** Registers an awakeable of a follower, awaited until the watch holds it. */
export function registerFollower(
  ctx: restate.ObjectSharedContext,
  sessionObject: string,
  awakeableId: string,
): Promise<void> {
  return jsonCall<string, void>(ctx, watchName(sessionObject), "register", ctx.key, awakeableId);
}
