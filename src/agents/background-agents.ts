import { randomBytes } from "node:crypto";
import type { ReminderSource } from "../context/reminder-engine.js";
import type { AgentEvent, AgentPath, AgentResult } from "../loop/agent-event.js";
import type { Spawner, SpawnRequest } from "../loop/spawn.js";
import { emptyUsage, type Message } from "../messages/index.js";
import { formatSubagentResult, lastText } from "./format-subagent-result.js";

/** Where a sub-agent stands. */
export type AgentStatus = "running" | "completed" | "failed" | "stopped";

/** One sub-agent the main agent started (in the background, or in the foreground and kept for `SendMessage`). */
export interface AgentRecord {
  /** Its id for TaskOutput, TaskStop and SendMessage, e.g. `a3f9c2d1`. */
  readonly id: string;
  readonly agent: string;
  readonly description: string;
  readonly agentPath: AgentPath;
  readonly background: boolean;
  status: AgentStatus;
  /** Its transcript so far (each message as sent or received). */
  messages: Message[];
  /** Its last run's result, once that run ended. */
  result?: AgentResult;
  startedAt: number;
  endedAt?: number;
  /** The main agent has its answer (the reminder carried it, TaskOutput returned it, or TaskStop stopped it). */
  delivered: boolean;
  /** What started it (a continuation reuses its system prompt, tools and model). */
  readonly request: SpawnRequest;
  /** Messages waiting for its next request while it runs. */
  inbox: string[];
}

/** A background agent's run ended: its record (status, result). */
export type FinishedListener = (record: AgentRecord) => void;

/** What starting a background run needs from the tool that starts it. */
export interface BackgroundStart {
  spawner: Spawner;
  request: SpawnRequest;
  agentPath: AgentPath;
  agent: string;
  description: string;
}

/**
 * The sub-agents of one conversation: those running in the background (Task `run_in_background`) and the
 * finished ones a `SendMessage` may continue. A background agent runs concurrently with the main loop under its
 * own abort controller (Ctrl-C of a turn does not stop it; `stop` and `close` do); when it ends, its answer
 * reaches the main agent exactly once — as a `<system-reminder>` in the next request (`reminderSource`), or
 * through `TaskOutput` — and `onFinished` listeners are told (a front-end may start a turn when idle).
 */
export class BackgroundAgents {
  readonly #records = new Map<string, AgentRecord>();
  readonly #runs = new Map<string, { controller: AbortController; done: Promise<AgentResult> }>();
  readonly #finished = new Set<FinishedListener>();
  /** The spawner each agent was started with: a message from the user (`/tasks send`) continues it with it. */
  readonly #spawners = new Map<string, Spawner>();
  readonly #events = new Set<(event: AgentEvent, record: AgentRecord) => void>();

  /** Every agent, in start order. */
  list(): AgentRecord[] {
    return [...this.#records.values()];
  }

  get(id: string): AgentRecord | undefined {
    return this.#records.get(id);
  }

  running(): AgentRecord[] {
    return this.list().filter((r) => r.status === "running");
  }

  /** Background agents whose run ended and whose answer the main agent does not have yet. */
  undelivered(): AgentRecord[] {
    return this.list().filter((r) => r.background && r.status !== "running" && !r.delivered);
  }

  /** Called with each background run's end; returns the unsubscribe. */
  onFinished(listener: FinishedListener): () => void {
    this.#finished.add(listener);
    return () => this.#finished.delete(listener);
  }

  /** Each event of each background run (for a UI that shows them); returns the unsubscribe. */
  onEvent(listener: (event: AgentEvent, record: AgentRecord) => void): () => void {
    this.#events.add(listener);
    return () => this.#events.delete(listener);
  }

  /** Keeps a foreground agent's finished run, so `SendMessage` can continue it. */
  keep(
    entry: Omit<AgentRecord, "id" | "status" | "delivered" | "inbox" | "messages"> & {
      id?: string;
      spawner?: Spawner;
    },
  ) {
    const { spawner, ...rest } = entry;
    const result = entry.result;
    const record: AgentRecord = {
      ...rest,
      id: entry.id ?? newAgentId(),
      status: result ? statusOf(result) : "completed",
      messages: result ? [...result.messages] : [],
      delivered: true,
      inbox: [],
    };
    this.#records.set(record.id, record);
    if (spawner) this.#spawners.set(record.id, spawner);
    return record;
  }

  /** Starts a background agent; returns its record at once. */
  start(start: BackgroundStart): AgentRecord {
    const record: AgentRecord = {
      id: newAgentId(),
      agent: start.agent,
      description: start.description,
      agentPath: start.agentPath,
      background: true,
      status: "running",
      messages: [],
      startedAt: performance.now(),
      delivered: false,
      request: start.request,
      inbox: [],
    };
    this.#records.set(record.id, record);
    this.#spawners.set(record.id, start.spawner);
    this.#run(record, start.spawner, start.request);
    return record;
  }

  /**
   * Continues a finished agent with a new message in the background (its own transcript: its cache), or, while
   * it runs, queues the message for its next request. Returns what happened, in words for the model.
   */
  send(id: string, message: string, spawner?: Spawner): string {
    const record = this.#records.get(id);
    if (!record) throw new Error(`No agent with id ${id}.`);
    if (record.status === "running") {
      record.inbox.push(message);
      return `Message queued for agent ${id}: it reads it before its next model call.`;
    }
    const through = spawner ?? this.#spawners.get(id);
    if (!through) throw new Error("Sub-agents cannot be started here.");
    const request: SpawnRequest = { ...record.request, prompt: message, history: record.messages };
    Object.assign(record, { status: "running", delivered: false, startedAt: performance.now() });
    (record as { background: boolean }).background = true;
    delete record.endedAt;
    delete record.result;
    this.#run(record, through, request);
    return `Agent ${id} continues in the background with your message; its answer will reach you when it ends.`;
  }

  /** Stops a running agent; resolves once its run ended. False when it was not running. */
  async stop(id: string): Promise<boolean> {
    const record = this.#records.get(id);
    const run = this.#runs.get(id);
    if (!record || !run || record.status !== "running") return false;
    record.delivered = true;
    run.controller.abort();
    await run.done;
    record.status = "stopped";
    return true;
  }

  /**
   * Resolves with the record once its run ended, or after `timeoutMs` (or on `signal`) with it still running.
   */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<AgentRecord | undefined> {
    const record = this.#records.get(id);
    const run = this.#runs.get(id);
    if (!record || !run || record.status !== "running") return record;
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    await Promise.race([
      run.done,
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        onAbort = () => resolve(undefined);
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    return record;
  }

  /** Resolves when a background agent ends (its answer is ready), or at once when none runs. */
  async waitAny(signal?: AbortSignal): Promise<void> {
    if (this.running().length === 0 || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        off();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const off = this.onFinished(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Marks the answer as delivered and returns the text for the model. */
  deliver(record: AgentRecord): string {
    record.delivered = true;
    return answerText(record);
  }

  /**
   * The reminder source for the main agent's context: each background agent that ended since the last request
   * is reported once, with its answer (then it counts as delivered). On a resumed session's first request it
   * also names the background agents the earlier process left running: they are gone (`notify` tells the user).
   */
  reminderSource(notify?: (message: string) => void): ReminderSource {
    let first = true;
    return {
      name: "background-agents",
      collect: (state) => {
        const parts: string[] = [];
        if (first) {
          first = false;
          const lost = lostBackgroundAgents(state.messages).filter((id) => !this.#records.has(id));
          if (lost.length > 0) {
            notify?.(`background agents still running when the session ended are gone: ${lost.join(", ")}`);
            parts.push(
              `These background agents were still running when the previous session ended; they were stopped and their answers are lost: ${lost.join(", ")}. Start them again if their work is still needed.`,
            );
          }
        }
        for (const record of this.undelivered()) parts.push(this.deliver(record));
        return parts.length > 0 ? parts.join("\n\n") : undefined;
      },
    };
  }

  /** Stops every running agent (the conversation ends). */
  async close(): Promise<void> {
    await Promise.all(this.running().map((r) => this.stop(r.id)));
  }

  #run(record: AgentRecord, spawner: Spawner, request: SpawnRequest): void {
    const controller = new AbortController();
    const base = record.messages.length;
    const inbox = () => record.inbox.splice(0);
    const child = spawner({ ...request, inbox }, { agentPath: record.agentPath, signal: controller.signal });
    const done = (async (): Promise<AgentResult> => {
      for (;;) {
        let next: IteratorResult<AgentEvent, AgentResult>;
        try {
          next = await child.next();
        } catch (error) {
          return {
            reason: "error",
            messages: [],
            usage: emptyUsage(),
            error: { type: "subagent_error", message: String(error) },
          };
        }
        if (next.done) return next.value;
        const event = next.value;
        if (event.type === "message" && event.agentPath.length === record.agentPath.length) {
          record.messages.push(event.message);
        }
        for (const listener of this.#events) listener(event, record);
      }
    })();
    this.#runs.set(record.id, { controller, done });
    void done.then((result) => {
      // The whole transcript, as the run ends it (a continuation's starts with the earlier one).
      if (result.messages.length > 0) record.messages = [...result.messages];
      else record.messages = record.messages.slice(0, Math.max(base, record.messages.length));
      // Messages sent while it made its last model call: it goes on with them, in its own transcript.
      const pending = record.inbox.splice(0);
      if (pending.length > 0 && !controller.signal.aborted && statusOf(result) === "completed") {
        this.#run(record, spawner, {
          ...record.request,
          prompt: pending.join("\n\n"),
          history: record.messages,
        });
        return;
      }
      record.result = result;
      record.endedAt = performance.now();
      record.status = controller.signal.aborted ? "stopped" : statusOf(result);
      for (const listener of this.#finished) listener(record);
    });
  }
}

function statusOf(result: AgentResult): AgentStatus {
  if (result.reason === "aborted") return "stopped";
  return result.reason === "end_turn" || result.reason === "stop_sequence" ? "completed" : "failed";
}

function newAgentId(): string {
  return `a${randomBytes(4).toString("hex")}`;
}

/** The line the Task call's result starts with for a background agent; a resume reads the id back from it. */
export function backgroundStartedText(id: string, agent: string): string {
  return `Started ${agent} agent in the background: agent id ${id}.`;
}

const STARTED = /Started \S+ agent in the background: agent id (a[0-9a-f]{8})\./g;
/** Its end as the main agent learned it: the reminder or TaskOutput's report, or TaskStop's result. */
const ENDED = /(?:<background-agent id="|Stopped agent )(a[0-9a-f]{8})/g;

/** The background agents a transcript started whose end it never received. */
export function lostBackgroundAgents(messages: readonly Message[]): string[] {
  const started: string[] = [];
  const ended = new Set<string>();
  for (const message of messages) {
    if (message.role !== "user") continue;
    for (const block of message.content) {
      const texts =
        block.type === "text"
          ? [block.text]
          : block.type === "tool_result"
            ? typeof block.content === "string"
              ? [block.content]
              : block.content.flatMap((b) => (b.type === "text" ? [b.text] : []))
            : [];
      for (const text of texts) {
        for (const m of text.matchAll(STARTED)) started.push(m[1] as string);
        for (const m of text.matchAll(ENDED)) ended.add(m[1] as string);
      }
    }
  }
  return started.filter((id) => !ended.has(id));
}

/** A finished background agent's report to the main agent. */
export function answerText(record: AgentRecord): string {
  const result = record.result;
  const durationMs = (record.endedAt ?? performance.now()) - record.startedAt;
  const body = result
    ? formatSubagentResult(result, { agent: record.agent, durationMs }).content
    : lastText({ reason: "aborted", messages: record.messages, usage: emptyUsage() });
  return `<background-agent id="${record.id}" agent="${record.agent}" description="${record.description}" status="${record.status}">\n${body}\n</background-agent>`;
}
