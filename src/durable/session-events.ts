import * as restate from "@restatedev/restate-sdk";
import type { Message } from "../messages/index.js";
import { jsonCall } from "./json-serde.js";
import type { PendingAsk } from "./pending-ask.js";
import { driverName } from "./session-object-name.js";
import { readPending, STATE } from "./session-state.js";
import { registerFollower } from "./session-watch.js";

/** The body of a session's `events` call: what the caller has seen (none: answer at once). */
export interface EventsRequest {
  /** The index of the first message not seen yet. */
  from?: number;
  /** Whether the caller last saw a run in progress; given, the call waits until something differs. */
  running?: boolean;
  /** The questions (tool use ids) the caller has seen. */
  known?: string[];
  /** How long to wait for a change (default 25 s, at most 60 s). */
  waitMs?: number;
}

/** What `events` returns: the session's messages from `from`, its questions, whether a run is going on. */
export interface SessionEvents {
  from: number;
  /** Messages from `from` (at most `MAX_MESSAGES`: more follow in the next call). */
  messages: Message[];
  /** The transcript's length. */
  length: number;
  pending: PendingAsk[];
  running: boolean;
}

const DEFAULT_WAIT_MS = 25_000;
const MAX_WAIT_MS = 60_000;
const MAX_MESSAGES = 200;
/** The longest wait without live events (`DurableAgentOptions.liveEvents` false). */
const UNWOKEN_WAIT_MS = 1000;

/** The session's questions and those of the sub-agents it waits on (each names its session). */
export async function allPending(ctx: restate.ObjectSharedContext, name: string): Promise<PendingAsk[]> {
  const own = await readPending(ctx);
  const children = (await ctx.get<string[]>(STATE.children)) ?? [];
  const theirs = await Promise.all(
    children.map((key) => jsonCall<undefined, PendingAsk[]>(ctx, name, "pending", key, undefined)),
  );
  return [...own, ...theirs.flat()];
}

function eventsRequestProblem(body: EventsRequest): string | undefined {
  if (body.from !== undefined && !(Number.isInteger(body.from) && body.from >= 0))
    return "from must be a whole number, 0 or more";
  if (body.running !== undefined && typeof body.running !== "boolean") return "running must be true or false";
  if (
    body.known !== undefined &&
    !(Array.isArray(body.known) && body.known.every((id) => typeof id === "string"))
  )
    return "known must be a list of tool use ids";
  if (body.waitMs !== undefined && !(Number.isInteger(body.waitMs) && body.waitMs >= 0))
    return "waitMs must be a whole number of milliseconds";
  return undefined;
}

/** True when `now` holds something the caller of `body` has not seen. */
function news(now: SessionEvents, body: EventsRequest): boolean {
  const known = new Set(body.known ?? []);
  return (
    now.messages.length > 0 ||
    now.running !== body.running ||
    now.pending.some((ask) => !known.has(ask.toolUseId)) ||
    now.pending.length !== known.size
  );
}

/**
 * A session's `events` and `snapshot` handlers (shared). `events` answers what the caller has not seen: at once
 * when there is something (or the caller has seen nothing), else when the session's next event wakes it (a
 * message stored, a question asked, a run started or ended: `notifyFollowers`), or after `waitMs`. It waits on an
 * awakeable registered with the session's watch object before it looks (a separate `snapshot` call, started
 * after the registration), so an event between the look and the wait is not missed. Waiting holds no worker.
 */
export function eventsHandlers(name: string, live: boolean) {
  const snapshot = (ctx: restate.ObjectSharedContext, from: number) =>
    jsonCall<number, SessionEvents>(ctx, name, "snapshot", ctx.key, from);
  return {
    events: restate.handlers.object.shared(
      async (
        ctx: restate.ObjectSharedContext,
        request: EventsRequest | undefined,
      ): Promise<SessionEvents> => {
        const body = request ?? {};
        const problem =
          typeof body === "object" && body !== null ? eventsRequestProblem(body) : "not an object";
        if (problem)
          throw new restate.TerminalError(`Malformed events request: ${problem}`, { errorCode: 400 });
        const from = body.from ?? 0;
        // A snapshot reads the transcript, then asks the driver whether a run goes on: one that says the run ended
        // may have read the transcript before the run's last turn stored its answer. Unless the caller knew it had
        // ended, it is taken once more, in a call that starts after the end, so the last messages come with it.
        const settled = async (now: SessionEvents) =>
          now.running || body.running === false ? now : snapshot(ctx, from);
        const first = await snapshot(ctx, from);
        if (body.running === undefined) {
          const now = await settled(first);
          if (now.length === 0 && !now.running)
            throw new restate.TerminalError(`Unknown session: ${ctx.key}`, { errorCode: 404 });
          return now;
        }
        if (news(first, body)) return settled(first);
        const wake = ctx.awakeable<null>();
        await registerFollower(ctx, name, wake.id);
        const second = await snapshot(ctx, from);
        if (news(second, body)) return settled(second);
        // Without live events a stored message wakes no one: the call looks again within a second.
        const waitMs = Math.min(body.waitMs ?? DEFAULT_WAIT_MS, live ? MAX_WAIT_MS : UNWOKEN_WAIT_MS);
        await restate.RestatePromise.race([wake.promise, ctx.sleep(waitMs)]);
        return settled(await snapshot(ctx, from));
      },
    ),

    /** The session as it is now (for `events`, which reads it in a call of its own: a fresh look). */
    snapshot: restate.handlers.object.shared(
      { ingressPrivate: true },
      async (ctx: restate.ObjectSharedContext, from: number): Promise<SessionEvents> => {
        const length = (await ctx.get<number>(STATE.length)) ?? 0;
        const start = Math.min(Math.max(0, from), length);
        const messages: Message[] = [];
        for (let i = start; i < Math.min(length, start + MAX_MESSAGES); i++) {
          const message = await ctx.get<Message>(STATE.message(i));
          if (message) messages.push(message);
        }
        const running = await jsonCall<undefined, boolean>(
          ctx,
          driverName(name),
          "running",
          ctx.key,
          undefined,
        );
        return { from: start, messages, length, pending: await allPending(ctx, name), running };
      },
    ),
  };
}
