import { randomUUID } from "node:crypto";
import type { Message } from "../messages/index.js";
import { DurableError, restateErrorMessage, unreachable } from "./durable-error.js";
import type { PendingAsk } from "./pending-ask.js";
import type { AnswerRequest, PromptRequest, PromptResponse } from "./prompt-request.js";
import type { EventsRequest, SessionEvents } from "./session-events.js";
import { DEFAULT_SESSION_OBJECT, driverName } from "./session-object-name.js";

export interface SessionClientOptions {
  /** The Restate ingress, e.g. `http://localhost:8080`. */
  ingressUrl: string;
  /** The session object's name; default `mitsu-session`. */
  name?: string;
  fetch?: typeof fetch;
  /** How often `prompt` looks for its answer; default 250 ms. */
  pollMs?: number;
  /** The Restate admin API, e.g. `http://localhost:9070`: needed by `cancel` only. */
  adminUrl?: string;
}

export interface PromptCallOptions {
  signal?: AbortSignal;
  /**
   * Told of each permission question the session starts to wait on (once per question), so that a person can
   * be asked to `approve` or `deny` it.
   */
  onPending?: (ask: PendingAsk) => void;
  /** Makes a resent prompt the same invocation (Restate's idempotency key); default a new one per call. */
  idempotencyKey?: string;
}

/** Talks to mitsu sessions through the Restate ingress; every failure is a `DurableError` that says what to do. */
export interface AnswerCallOptions {
  /** How long to wait for the answer to be delivered; default until it is. */
  waitMs?: number;
}

export interface SessionClient {
  /**
   * Sends a prompt and waits for its answer, however long the session waits for approvals: the prompt is
   * submitted once (with an idempotency key) and its result is polled, so no connection is held for hours.
   */
  prompt(session: string, request: PromptRequest, options?: PromptCallOptions): Promise<PromptResponse>;
  transcript(session: string): Promise<Message[]>;
  pending(session: string): Promise<PendingAsk[]>;
  /**
   * Approves the session's waiting call (`toolUseId` may be left out when exactly one waits). The answer is sent
   * to the ingress (queued there) and its outcome awaited; with `waitMs`, no outcome by then (no worker runs) throws
   * a DurableError with status 202: the answer stays queued and reaches the session when a worker runs.
   */
  approve(session: string, request?: AnswerRequest, options?: AnswerCallOptions): Promise<PendingAsk>;
  deny(session: string, request?: AnswerRequest, options?: AnswerCallOptions): Promise<PendingAsk>;
  /**
   * Cancels the session's running prompt (through the admin API): the run stops, its pending tool calls are
   * answered as interrupted and the transcript stays valid; queued prompts run after it. Resolves with the
   * cancelled invocation's id; throws when no prompt runs.
   */
  cancel(session: string): Promise<string>;
  /** The sessions the server holds and their state (through the admin API), by id. */
  list(): Promise<SessionSummary[]>;
  /**
   * What of the session the caller has not seen (`EventsRequest`): answered at once when there is something new,
   * else when the session's next event happens (the server wakes the call; nothing is polled) or after `waitMs`.
   */
  events(session: string, request?: EventsRequest, signal?: AbortSignal): Promise<SessionEvents>;
  /**
   * The session's events as they happen: its stored messages from `from` (its history first), each question it
   * starts to wait on, and each start and end of a run. Ends when no run goes on and every message has been
   * given (a finished session: its history, then the end), unless `untilIdle` is false (then it ends when
   * `signal` aborts).
   */
  follow(session: string, options?: FollowOptions): AsyncGenerator<SessionEvent, void>;
}

export interface FollowOptions {
  /** The index of the first message to give; default 0 (the whole history). */
  from?: number;
  signal?: AbortSignal;
  /** Default true: end once the session is idle and all its messages were given. */
  untilIdle?: boolean;
  /**
   * Whether a run is taken to be going on at the start: given, the first look waits for news (a session with no
   * run yet waits for its first prompt, instead of being unknown).
   */
  running?: boolean;
}

/** One event of a followed session. */
export type SessionEvent =
  | { type: "message"; index: number; message: Message }
  | { type: "pending"; ask: PendingAsk }
  | { type: "running"; running: boolean };

/** A session as `list` shows it. */
export interface SessionSummary {
  id: string;
  /** The transcript's length. */
  messages: number;
  /** running: a prompt runs; waiting: it waits for a permission answer; idle: none runs. */
  state: "running" | "waiting" | "idle";
  /** Prompts queued behind the running one. */
  queued: number;
}

/** A value for a single-quoted SQL string literal. */
function sqlString(value: string): string {
  return value.replaceAll("'", "''");
}

// The abort listener goes when the timer fires: a prompt polls for hours with one signal, and listeners left on it
// would pile up (Node warns of a leak at the 11th).
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Rows of the admin API's SQL introspection (`/query`); a failure's message starts with `what`. */
async function adminQuery<T>(doFetch: typeof fetch, admin: string, sql: string, what: string): Promise<T[]> {
  let response: Response;
  let text: string;
  try {
    response = await doFetch(`${admin}/query`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: sql }),
    });
    text = await response.text();
  } catch (error) {
    throw unreachable("Restate admin API", admin, error);
  }
  if (!response.ok) throw new DurableError(`${what}: ${restateErrorMessage(text)}`, response.status);
  return (JSON.parse(text) as { rows: T[] }).rows;
}

/** The sessions the server holds, from the admin API's SQL: their state, queued prompts and transcript length. */
async function listSessions(doFetch: typeof fetch, admin: string, name: string): Promise<SessionSummary[]> {
  const state = await adminQuery<{ key: string; name: string; value: string | null }>(
    doFetch,
    admin,
    `SELECT service_key AS key, key AS name, value_utf8 AS value FROM state WHERE service_name = '${sqlString(name)}' AND key IN ('length', 'pending')`,
    "Sessions",
  );
  const runs = await adminQuery<{ key: string; status: string }>(
    doFetch,
    admin,
    `SELECT target_service_key AS key, status FROM sys_invocation WHERE target_service_name = '${sqlString(driverName(name))}' AND status != 'completed'`,
    "Sessions",
  );
  const sessions = new Map<string, SessionSummary>();
  const of = (id: string) => {
    let summary = sessions.get(id);
    if (!summary) {
      summary = { id, messages: 0, state: "idle", queued: 0 };
      sessions.set(id, summary);
    }
    return summary;
  };
  for (const row of state) {
    const summary = of(row.key);
    if (row.name === "length") summary.messages = Number(row.value ?? 0);
  }
  for (const row of runs) {
    const summary = of(row.key);
    if (row.status === "inboxed") summary.queued++;
    else summary.state = "running";
  }
  for (const row of state)
    if (row.name === "pending" && row.value !== null && row.value !== "[]") of(row.key).state = "waiting";
  return [...sessions.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function createSessionClient(options: SessionClientOptions): SessionClient {
  const doFetch = options.fetch ?? fetch;
  const name = options.name ?? DEFAULT_SESSION_OBJECT;
  const base = options.ingressUrl.replace(/\/+$/, "");
  const pollMs = options.pollMs ?? 250;

  const request = async (
    path: string,
    init: RequestInit,
    what: string,
  ): Promise<{ status: number; text: string }> => {
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, init);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw unreachable("Restate ingress", base, error);
    }
    const text = await response.text();
    if (response.ok || response.status === 470) return { status: response.status, text };
    if (response.status === 404 && /service .* not found|not found.*service/i.test(text))
      throw new DurableError(
        `${what}: the Restate server knows no ${name} object. Start a worker and register it (mitsu worker prints how).`,
        404,
      );
    throw new DurableError(`${what}: ${restateErrorMessage(text)}`, response.status);
  };

  const objectPath = (session: string, handler: string) => {
    if (session === "") throw new DurableError("A session id is required.");
    return `/${encodeURIComponent(name)}/${encodeURIComponent(session)}/${handler}`;
  };

  const call = async <T>(
    session: string,
    handler: string,
    body: unknown,
    what: string,
    signal?: AbortSignal,
  ): Promise<T> => {
    const init: RequestInit = { method: "POST", headers: { "content-type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    const { text } = await request(objectPath(session, handler), init, what);
    return JSON.parse(text) as T;
  };

  /** Sends a call of the session's handler (the ingress queues it, once per idempotency key): its invocation id. */
  const send = async (
    session: string,
    handler: string,
    body: unknown,
    what: string,
    idempotencyKey: string,
    signal?: AbortSignal,
  ): Promise<string> => {
    const sent = await request(
      `${objectPath(session, handler)}/send`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      },
      what,
    );
    return (JSON.parse(sent.text) as { invocationId: string }).invocationId;
  };

  /** The sent call's outcome: its status (470 while it has none yet) and text. */
  const outputOf = (invocationId: string, what: string, signal?: AbortSignal) =>
    request(
      `/restate/invocation/${encodeURIComponent(invocationId)}/output`,
      { method: "GET", ...(signal ? { signal } : {}) },
      what,
    );

  // An answer is a handler of the session, which runs on a worker: it is sent (the ingress queues it) and its
  // outcome polled, so that with no worker up the caller learns at once that it waits, not after a timeout.
  const answer = async (
    session: string,
    handler: "approve" | "deny",
    body: AnswerRequest | undefined,
    what: string,
    waitMs: number | undefined,
  ): Promise<PendingAsk> => {
    const invocationId = await send(session, handler, body ?? {}, what, randomUUID());
    const deadline = waitMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + waitMs;
    for (;;) {
      const output = await outputOf(invocationId, what);
      if (output.status !== 470) return JSON.parse(output.text) as PendingAsk;
      if (Date.now() >= deadline)
        throw new DurableError(
          `${what}: the answer is queued (invocation ${invocationId}) but no worker has taken it yet; it reaches the session when a worker runs.`,
          202,
        );
      await sleep(Math.min(pollMs, 250), undefined);
    }
  };

  return {
    async prompt(session, body, callOptions = {}) {
      const { signal, onPending } = callOptions;
      const what = `Prompt to session ${session}`;
      const key = callOptions.idempotencyKey ?? randomUUID();
      const invocationId = await send(session, "prompt", body, what, key, signal);
      const told = new Set<string>();
      for (let round = 0; ; round++) {
        const output = await outputOf(invocationId, what, signal);
        if (output.status !== 470) return JSON.parse(output.text) as PromptResponse;
        if (onPending) {
          for (const ask of await this.pending(session)) {
            if (told.has(ask.awakeableId)) continue;
            told.add(ask.awakeableId);
            onPending(ask);
          }
        }
        await sleep(Math.min(pollMs * (1 + Math.floor(round / 20)), 2000), signal);
      }
    },
    transcript: (session) => call(session, "transcript", undefined, `Transcript of session ${session}`),
    pending: (session) => call(session, "pending", undefined, `Questions of session ${session}`),
    approve: (session, body, callOptions) =>
      answer(session, "approve", body, `Approve in session ${session}`, callOptions?.waitMs),
    deny: (session, body, callOptions) =>
      answer(session, "deny", body, `Deny in session ${session}`, callOptions?.waitMs),
    events: (session, body = {}, signal) =>
      call(session, "events", body, `Events of session ${session}`, signal),
    async *follow(session, followOptions = {}) {
      const { signal } = followOptions;
      let from = followOptions.from ?? 0;
      let known: string[] = [];
      let running = followOptions.running;
      for (;;) {
        const seen = running === undefined ? { from } : { from, running, known };
        const now = await this.events(session, seen, signal);
        for (const [i, message] of now.messages.entries())
          yield { type: "message", index: now.from + i, message };
        from = now.from + now.messages.length;
        for (const ask of now.pending) if (!known.includes(ask.toolUseId)) yield { type: "pending", ask };
        known = now.pending.map((ask) => ask.toolUseId);
        if (running !== undefined && now.running !== running) yield { type: "running", running: now.running };
        running = now.running;
        if (!running && from >= now.length && followOptions.untilIdle !== false) return;
      }
    },
    async list() {
      const admin = options.adminUrl?.replace(/\/+$/, "");
      if (!admin) throw new DurableError("Listing sessions needs the Restate admin API's URL (adminUrl).");
      return listSessions(doFetch, admin, name);
    },
    async cancel(session) {
      const admin = options.adminUrl?.replace(/\/+$/, "");
      if (!admin) throw new DurableError("Cancelling needs the Restate admin API's URL (adminUrl).");
      const what = `Cancel in session ${session}`;
      // A prompt runs turn by turn (the driver calls the session's `turn` handler once per model turn): the
      // running turn is cancelled, which ends the run (its waiting calls answered) and so the prompt.
      const running = async (service: string, handler: string): Promise<string | undefined> =>
        (
          await adminQuery<{ id: string }>(
            doFetch,
            admin,
            `SELECT id FROM sys_invocation WHERE target_service_name = '${sqlString(service)}' AND target_service_key = '${sqlString(session)}' AND target_handler_name = '${handler}' AND status NOT IN ('completed', 'inboxed') ORDER BY created_at LIMIT 1`,
            what,
          )
        )[0]?.id;
      let id: string | undefined;
      // Between two turns no turn runs for a moment: looked for again while the prompt runs.
      for (let round = 0; round < 50; round++) {
        id = await running(name, "turn");
        if (id || !(await running(driverName(name), "prompt"))) break;
        await sleep(100, undefined);
      }
      if (!id) throw new DurableError(`${what}: no prompt is running in session ${session}`, 404);
      const response = await doFetch(`${admin}/invocations/${encodeURIComponent(id)}/cancel`, {
        method: "PATCH",
      });
      if (!response.ok)
        throw new DurableError(`${what}: ${restateErrorMessage(await response.text())}`, response.status);
      return id;
    },
  };
}
