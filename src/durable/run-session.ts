import type * as restate from "@restatedev/restate-sdk";
import { CancelledError } from "@restatedev/restate-sdk";
import { injectReminders } from "../context/reminder-engine.js";
import type { AgentResult } from "../loop/agent-event.js";
import { checkTranscript } from "../loop/check-transcript.js";
import type { Journal } from "../loop/journal.js";
import type { PermissionDecision } from "../loop/permission.js";
import type { PrepareRequestInfo } from "../loop/run-agent.js";
import { runAgentToEnd } from "../loop/run-agent.js";
import type { Spawner, SpawnRequest } from "../loop/spawn.js";
import type { Tool } from "../loop/tool.js";
import { ToolState, type ToolStateKey } from "../loop/tool-state.js";
import type { AssistantMessage, Message, TextBlock } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import { ACTIVE_SKILLS } from "../skills/active-skills.js";
import { READ_TRACKER } from "../tools/read-tracker.js";
import { PendingAsks } from "./ask-person.js";
import type { DurableAgentSetup, DurablePermissions } from "./durable-agent-setup.js";
import { type InFlightSteps, runStep } from "./in-flight-steps.js";
import { jsonCall } from "./json-serde.js";
import { modelAnswer } from "./model-answer.js";
import { restateJournal } from "./restate-journal.js";
import { appendMessage, readToolStateChanges, STATE, StateList } from "./session-state.js";
import { notifyFollowers } from "./session-watch.js";
import type { StepMarks } from "./step-marks.js";
import { toolStateDelta } from "./tool-state-delta.js";
import { EMPTY_DIGEST, nextDigest, type TranscriptCache } from "./transcript-cache.js";

/** The body of a session's `task` handler: a sub-agent run as a session of its own. */
export interface TaskRequest {
  request: SpawnRequest;
  /** The parent's workspace. */
  workspace?: string;
}

export interface RunSessionOptions {
  ctx: restate.ObjectContext;
  /** The session object's name (children are sessions of the same object). */
  name: string;
  setup: DurableAgentSetup;
  system: TextBlock[];
  tools: Tool<never>[];
  permissions: DurablePermissions | undefined;
  /**
   * The stored transcript, plus the new user message on a run's first turn; messages from `stored` on are
   * appended to the state (a stored trailing message, a turn's tool results, is sent again, not stored again).
   */
  messages: Message[];
  stored: number;
  /** The digest of the stored messages (`nextDigest`), or undefined when the state kept none (computed then). */
  digest: string | undefined;
  /**
   * The worker's cache of transcripts and tool-state changes (with `ingressUrl`): told the stored transcript and
   * its digest when the turn ends.
   */
  cache?: TranscriptCache;
  /** Where tool calls' starts are marked (a call re-run after its worker died is told so). */
  marks?: StepMarks;
  askTimeoutMs: number;
  /** The number of the invocation's first turn in its run (names its model steps). */
  turn: number;
  /** The most model calls this invocation makes. */
  turns: number;
  workspace: string | undefined;
  /** Tools whose calls start sub-agents (`Task`): each child runs as a durable call to its own session. */
  spawnTools: readonly string[];
  /** The worker's running model steps: one still running for an earlier attempt is waited for, not sent again. */
  inFlight?: InFlightSteps;
  /** Wake the session's followers when a message is stored (`DurableAgentOptions.liveEvents`). */
  liveEvents: boolean;
}

/**
 * One journaled model turn of a session (of a prompt, or of a sub-agent's task): one model call and the tool calls
 * it asks for, through `runAgent` with the Restate journal, the transcript appended to the state as it grows, and,
 * when the setup can spawn, sub-agents as durable calls to sessions of their own (`<session>.<tool_use id>`),
 * which any worker may run. Ends with reason `max_turns` when the model wants another turn: the run's driver
 * (`turn-driver.ts`) then starts the next one as an invocation of its own, so that a replay (on HTTP/1.1, one per
 * journaled step) covers this turn only, never the session's earlier turns. Returns the run's result with the
 * model calls made (`turns`) and the stored transcript's length (`stored`).
 */
export async function runSession(
  options: RunSessionOptions,
): Promise<AgentResult & { turns: number; stored: number }> {
  const { ctx, setup, tools } = options;
  const state = new ToolState();
  const toolStateKeys = setup.toolStateKeys ?? DEFAULT_TOOL_STATE;
  // The tool state: the legacy whole record (sessions stored before changes were), then each stored change.
  const saved = await ctx.get<Record<string, unknown>>(STATE.toolState);
  if (saved) state.restore(saved, toolStateKeys);
  const changeCount = (await ctx.get<number>(STATE.toolStates)) ?? 0;
  const changes = options.cache
    ? await options.cache.toolStateChanges(ctx, changeCount)
    : await readToolStateChanges(ctx, changeCount);
  for (const change of changes) state.restore(change, toolStateKeys);
  const loaded = state.snapshot();
  const decisions = new Map<string, PermissionDecision>();
  let length = options.stored;
  const kept = options.messages.slice(0, options.stored);
  let digest = options.digest ?? kept.reduce(nextDigest, EMPTY_DIGEST);
  const last = options.messages.at(-1);
  // The index of the next message `onMessage` is given (runAgent reports a trailing user message again).
  let reported = options.messages.length - (last?.role === "user" ? 1 : 0);
  // The sub-agent sessions the run waits on, in the state, so that `pending` can list their questions.
  const children = new StateList<string>(ctx, STATE.children);
  const cancelled = new AbortController();
  const spawn: Spawner | undefined = setup.spawn
    ? // biome-ignore lint/correctness/useYield: a durable call streams no events; it returns the child's result.
      async function* (request, origin) {
        const key = `${ctx.key}.${origin.agentPath.at(-1) ?? "child"}`;
        children.add(key);
        try {
          const body: TaskRequest = {
            request,
            ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
          };
          return await jsonCall<TaskRequest, AgentResult>(ctx, options.name, "task", key, body);
        } finally {
          children.delete(key);
        }
      }
    : undefined;
  const inner = restateJournal({
    ctx,
    tools,
    permissions: options.permissions,
    decisions,
    // A question wakes the followers of this session and of the sessions it runs under (a sub-agent's parents).
    pending: new PendingAsks(ctx, () => {
      const parts = ctx.key.split(".");
      for (let n = parts.length; n > 0; n--) notifyFollowers(ctx, options.name, parts.slice(0, n).join("."));
    }),
    state,
    askTimeoutMs: options.askTimeoutMs,
    turn: options.turn,
    spawnTools: spawn ? options.spawnTools : [],
    toolStateKeys,
    ...(options.marks ? { marks: options.marks } : {}),
    ...(options.inFlight ? { inFlight: options.inFlight } : {}),
    onCancelled: () => cancelled.abort(new Error("the invocation was cancelled")),
  });
  let turns = 0;
  // Whether a step failed here: the attempt was cut off (or the invocation cancelled).
  let stepFailed = false;
  const failing = <T>(step: Promise<T>): Promise<T> =>
    step.catch((error: unknown) => {
      stepFailed = true;
      throw error;
    });
  // The answers of the turns whose model call was made with their reminders, in one step (`prepareRequest`).
  const answered = new Map<number, AssistantMessage>();
  const journal: Journal = {
    model: (info, call) => {
      if (info.agentPath.length > 0) return inner.model(info, call);
      turns++;
      const answer = answered.get(info.turn);
      answered.delete(info.turn);
      return answer ? Promise.resolve(answer) : failing(inner.model(info, call));
    },
    tool: (info, call) => failing(inner.tool(info, call)),
  };
  const result = await runAgentToEnd({
    provider: setup.provider,
    model: setup.model,
    system: options.system,
    tools,
    messages: options.messages,
    toolState: state,
    maxTurns: options.turns,
    ...(setup.maxTokens !== undefined ? { maxTokens: setup.maxTokens } : {}),
    ...(setup.thinkingBudget !== undefined ? { thinkingBudget: setup.thinkingBudget } : {}),
    ...(setup.temperature !== undefined ? { temperature: setup.temperature } : {}),
    ...(setup.prepareRequest || setup.reminders
      ? {
          prepareRequest: async (request: ModelRequest, info: PrepareRequestInfo) => {
            const last = request.messages.at(-1);
            const reminders = setup.reminders;
            if (!reminders || last?.role !== "user")
              return setup.prepareRequest ? setup.prepareRequest(request, info) : request;
            // The request with the reminders in its newest (user) message, then the setup's prepareRequest.
            const prepare = async (blocks: TextBlock[]) => {
              const prepared = {
                ...request,
                messages: [...request.messages.slice(0, -1), injectReminders(last, blocks)],
              };
              return setup.prepareRequest ? setup.prepareRequest(prepared, info) : prepared;
            };
            // The reminders and the model call are one journaled step (one round trip to the server, not two): a
            // replay (another worker, whose files and memory differ) adds what was added and gets the same answer.
            const recorded = await runStep(
              ctx,
              options.inFlight,
              `model turn ${options.turn + info.turn - 1}`,
              async () => {
                const blocks = await reminders(request, info);
                const prepared = await prepare(blocks);
                // A request the loop refuses (an invalid transcript) is not sent: the run ends before its call.
                if (checkTranscript(prepared.messages).length > 0) return { blocks };
                return { blocks, message: await modelAnswer(setup.provider, prepared, cancelled.signal) };
              },
            ).catch((error: unknown) => {
              stepFailed = true;
              // Cancelled while it ran: the run ends (its transcript answered), as for a plain model step.
              if (error instanceof CancelledError) cancelled.abort(new Error("the invocation was cancelled"));
              throw error;
            });
            if (recorded.message) answered.set(info.turn, recorded.message);
            return prepare(recorded.blocks);
          },
        }
      : {}),
    ...(spawn ? { spawn } : {}),
    liveInput: false,
    signal: cancelled.signal,
    canUseTool: (tool, _input, context) =>
      decisions.get(context.toolUseId) ?? {
        behavior: "deny",
        message: `mitsu bug: no permission decision was journaled for ${tool.name}`,
      },
    journal,
    onMessage: (message: Message) => {
      const index = reported++;
      if (index < options.stored) {
        // The stored trailing message (the last turn's tool results), as sent: with this turn's reminders.
        if (JSON.stringify(message) === JSON.stringify(kept[index])) return;
        ctx.set(STATE.message(index), message);
        kept[index] = message;
        digest = kept.reduce(nextDigest, EMPTY_DIGEST);
        ctx.set(STATE.digest, digest);
        // No follower is woken: it has seen this message (its reminders are not news).
        return;
      }
      length = appendMessage(ctx, length, message);
      kept.push(message);
      digest = nextDigest(digest, message);
      ctx.set(STATE.digest, digest);
      if (options.liveEvents) notifyFollowers(ctx, options.name);
    },
  });
  // Written when the invocation changed it (a Read, a skill): an unchanged state is not journaled again.
  if (toolStateKeys.length > 0) {
    const snapshot = state.snapshot();
    // Stored as this invocation's change: the state's record does not grow with the files Read before.
    const change = toolStateDelta(loaded, snapshot);
    if (Object.keys(change).length > 0) {
      ctx.set(STATE.toolStateChange(changeCount), change);
      ctx.set(STATE.toolStates, changeCount + 1);
      options.cache?.rememberToolState(ctx.key, [...changes, change]);
    }
  }
  options.cache?.remember(ctx.key, kept, digest);
  // Every step of the invocation is journaled now: its calls' marks are no longer needed. Not so in an attempt
  // cut off (its steps failed: the journal is gone from under it): the next attempt, elsewhere, may be running a
  // call this one started, and must find its mark.
  if (!stepFailed) await options.marks?.clear(ctx.key);
  return { ...result, turns, stored: length };
}

/** What follows a session by default: the files Read (Edit's check) and the active skills' pre-approvals. */
const DEFAULT_TOOL_STATE = [READ_TRACKER, ACTIVE_SKILLS] as unknown as ToolStateKey<never>[];
