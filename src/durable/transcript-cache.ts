import { createHash } from "node:crypto";
import type { ObjectContext } from "@restatedev/restate-sdk";
import type { Message } from "../messages/index.js";
import { readTranscript, STATE } from "./session-state.js";

/** The digest of an empty transcript; each message's digest chains the one before (`nextDigest`). */
export const EMPTY_DIGEST = "";

/** The transcript's digest after `message` was appended to a transcript whose digest was `previous`. */
export function nextDigest(previous: string, message: Message): string {
  return createHash("sha256").update(previous).update(JSON.stringify(message)).digest("base64url");
}

interface Cached {
  messages: Message[];
  /** The digest of `messages` (all of them). */
  digest: string;
}

/**
 * The transcripts of the sessions this worker ran lately, by session id, so that a turn need not read the whole
 * transcript from the object's state: a state read is journaled with its value, which would make every turn's
 * journal as large as the session. A turn reads the transcript's length and digest from the state (a few bytes,
 * journaled); a cached transcript with that digest is used as is. Otherwise (a worker that has not seen the
 * session, or one that fell behind) it is read through the Restate ingress (the session's shared `transcript`
 * handler), outside the journal: the messages before `length` never change (the transcript is append-only), so a
 * replay gets the same ones either way.
 */
export class TranscriptCache {
  readonly #sessions = new Map<string, Cached>();
  /** By session: its stored tool-state changes (all of them, `STATE.toolStates` long). */
  readonly #toolStates = new Map<string, Record<string, unknown>[]>();

  constructor(
    private readonly ingressUrl: string,
    private readonly objectName: string,
    // Sessions kept; one not kept is read through the ingress again (its messages before its length never change).
    private readonly capacity = 256,
  ) {}

  /** The stored transcript of the session `ctx` runs, and its digest (undefined for one stored before digests). */
  async read(ctx: ObjectContext): Promise<{ messages: Message[]; digest: string | undefined }> {
    const length = (await ctx.get<number>(STATE.length)) ?? 0;
    if (length === 0) return { messages: [], digest: EMPTY_DIGEST };
    const digest = (await ctx.get<string>(STATE.digest)) ?? undefined;
    // A session stored before digests were kept: the state is read (and journaled) as before.
    if (digest === undefined) return { messages: await readTranscript(ctx), digest };
    const cached = this.#sessions.get(ctx.key);
    if (cached && cached.messages.length === length && cached.digest === digest)
      return { messages: [...cached.messages], digest };
    const messages = (await this.#fetch(ctx.key)).slice(0, length);
    if (messages.length !== length || messages.reduce(nextDigest, EMPTY_DIGEST) !== digest)
      throw new Error(
        `The transcript of session ${ctx.key} read through the ingress (${messages.length} messages) does not match the session's state (${length}); retrying`,
      );
    this.remember(ctx.key, messages, digest);
    return { messages: [...messages], digest };
  }

  /** Records the transcript a turn left (its messages and their digest). */
  remember(session: string, messages: Message[], digest: string): void {
    keepNewest(this.#sessions, session, { messages: [...messages], digest }, this.capacity);
  }

  /**
   * The first `count` tool-state changes of the session `ctx` runs: from memory, else through the ingress (the
   * session's `toolStateChanges` handler). Changes before `count` never change, so a replay gets the same.
   */
  async toolStateChanges(ctx: ObjectContext, count: number): Promise<Record<string, unknown>[]> {
    if (count === 0) return [];
    const cached = this.#toolStates.get(ctx.key);
    if (cached && cached.length >= count) return cached.slice(0, count);
    const changes = (await this.#fetch<Record<string, unknown>[]>(ctx.key, "toolStateChanges")).slice(
      0,
      count,
    );
    if (changes.length !== count)
      throw new Error(
        `The tool state of session ${ctx.key} read through the ingress (${changes.length} changes) does not match the session's state (${count}); retrying`,
      );
    keepNewest(this.#toolStates, ctx.key, changes, this.capacity);
    return changes;
  }

  /** Records the session's tool-state changes after a turn stored one more. */
  rememberToolState(session: string, changes: Record<string, unknown>[]): void {
    keepNewest(this.#toolStates, session, [...changes], this.capacity);
  }

  async #fetch<T = Message[]>(session: string, handler = "transcript"): Promise<T> {
    const url = `${this.ingressUrl.replace(/\/+$/, "")}/${encodeURIComponent(this.objectName)}/${encodeURIComponent(session)}/${handler}`;
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" } });
    if (!response.ok)
      throw new Error(
        `Reading the transcript of session ${session} through ${url} failed: ${response.status}`,
      );
    return (await response.json()) as T;
  }
}

/** Sets `key` as the map's newest entry; past `capacity`, the oldest is dropped. */
function keepNewest<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > capacity) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
