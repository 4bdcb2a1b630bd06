import { existsSync, statSync } from "node:fs";
import * as restate from "@restatedev/restate-sdk";
import { appendPrompt } from "../harness/append-prompt.js";
import type { AgentResult } from "../loop/agent-event.js";
import { DEFAULT_MAX_TURNS } from "../loop/run-agent.js";
import { type AssistantMessage, emptyUsage, type Message, type TextBlock } from "../messages/index.js";
import type { DurableAgentSetup, DurablePermissions, DurableSession } from "./durable-agent-setup.js";
import { InFlightSteps } from "./in-flight-steps.js";
import { jsonCall } from "./json-serde.js";
import type { PendingAsk } from "./pending-ask.js";
import { ensurePromiseWithResolvers } from "./promise-with-resolvers.js";
import {
  type AnswerRequest,
  answerRequestProblem,
  type PromptRequest,
  type PromptResponse,
  promptRequestProblem,
} from "./prompt-request.js";
import { type RunSessionOptions, runSession, type TaskRequest } from "./run-session.js";
import { allPending, eventsHandlers } from "./session-events.js";
import { DEFAULT_SESSION_OBJECT, driverName } from "./session-object-name.js";
import { readSystem, readToolStateChanges, readTranscript, STATE } from "./session-state.js";
import { createSessionWatch } from "./session-watch.js";
import type { StepMarks } from "./step-marks.js";
import { EMPTY_DIGEST, TranscriptCache } from "./transcript-cache.js";
import { createTurnDriver, type TurnRequest, type TurnResponse } from "./turn-driver.js";

const DEFAULT_ASK_TIMEOUT_MS = 24 * 3_600_000;
const DEFAULT_TURNS_PER_INVOCATION = 4;
/**
 * The turns per invocation `mitsu worker --protocol http2` runs: on HTTP/2 a step does not replay the invocation,
 * so a longer invocation costs no more per step, and each one saved is a call from the driver and back (at 200
 * turns with an instant model, 1.5 s → 1.1 s; bench/durable).
 */
export const HTTP2_TURNS_PER_INVOCATION = 32;
/** How deep sub-agents nest: a session's sub-agents may start their own, whose sub-agents may not. */
const MAX_NESTING = 2;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A read-only sub-agent's permissions: a tool that is not `readOnly` is denied before the rules are asked. */
function readOnlyPermissions(
  permissions: DurablePermissions | undefined,
  readOnly: boolean,
): DurablePermissions | undefined {
  if (!readOnly) return permissions;
  return (tool, input, context) =>
    tool.readOnly
      ? (permissions?.(tool, input, context) ?? { behavior: "allow" })
      : { behavior: "deny", message: `${tool.name} is not available to a read-only agent.` };
}

export interface DurableAgentOptions {
  /** The virtual object's name (the ingress path's first part). Default `mitsu-session`. */
  name?: string;
  /** Makes the agent for one invocation of a session; see `DurableAgentSetup` (it must not differ between workers). */
  setup(session: DurableSession): DurableAgentSetup | Promise<DurableAgentSetup>;
  /**
   * Where a session's files are on this worker: given the session id and the workspace its first prompt named
   * (if any), the folder, or undefined when the agent needs none. Throw to refuse (the message reaches the
   * client). The folder must exist when a prompt runs; a worker without it refuses the prompt with a clear error.
   * Default: no workspace, and a prompt that names one is refused.
   */
  workspace?(sessionId: string, requested: string | undefined): string | undefined;
  /** How long a permission question waits before the call is denied; default 24 hours. */
  askTimeoutMs?: number;
  /**
   * The Restate ingress (e.g. `http://localhost:8080`). With it, a turn takes the session's earlier messages from
   * this worker's memory, or from the ingress when this worker has not seen the session (or fell behind), so the
   * journal holds only each turn's own steps. Without it each turn reads the transcript from the object's state,
   * and a state read is journaled with its value: each turn's journal is then as large as the session so far.
   */
  ingressUrl?: string;
  /**
   * The most model turns one invocation runs (default 4). A prompt runs as a chain of invocations, each replayed
   * from its own start on HTTP/1.1 (once per journaled step): fewer turns per invocation replay less, more turns
   * make fewer round trips through the server. On HTTP/2 (no replay per step) use `HTTP2_TURNS_PER_INVOCATION`.
   */
  turnsPerInvocation?: number;
  /**
   * Where tool calls' starts are marked, seen by every worker (`fileStepMarks(<folder on the shared volume>)`): a
   * call run again after its worker died mid-call then tells the model that the earlier attempt may have partly
   * run. Without it a re-run call says nothing of the earlier attempt.
   */
  stepMarks?: StepMarks;
  /**
   * Default true: each message a session stores wakes its followers (`events`, `mitsu remote follow`) at once, by
   * a one-way message to the session's watch object: an invocation on a worker per message (bench/durable: a
   * few ms a turn with an instant model, nothing beside a real one). False: no such message; a follower sees
   * new messages within a second (its call looks again), questions and a run's start and end still at once.
   */
  liveEvents?: boolean;
}

function terminal(message: string, code = 400): restate.TerminalError {
  return new restate.TerminalError(message, { errorCode: code });
}

function answerText(message: AssistantMessage | undefined): string {
  if (!message) return "";
  return message.content
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("");
}

function systemBlocks(system: DurableAgentSetup["system"]): TextBlock[] {
  if (system === undefined || system === "") return [];
  return typeof system === "string" ? [{ type: "text", text: system }] : system;
}

/** `approve` / `deny`: resolves the awakeable of the session's (or a running sub-agent's) question. */
function answerHandler(name: string, approve: boolean) {
  return restate.handlers.object.shared(
    async (ctx: restate.ObjectSharedContext, body: AnswerRequest | undefined): Promise<PendingAsk> => {
      const problem = answerRequestProblem(body);
      if (problem) throw terminal(`Malformed ${approve ? "approve" : "deny"} request: ${problem}`);
      const pending = await allPending(ctx, name);
      if (pending.length === 0) {
        const length = (await ctx.get<number>(STATE.length)) ?? 0;
        if (length === 0) throw terminal(`Unknown session: ${ctx.key}`, 404);
        throw terminal(`Session ${ctx.key} waits for no permission answer.`, 409);
      }
      const id = body?.toolUseId;
      const ask = id === undefined ? undefined : pending.find((p) => p.toolUseId === id);
      if (id !== undefined && !ask)
        throw terminal(
          `Session ${ctx.key} has no question about tool call ${id}; waiting: ${pending.map((p) => p.toolUseId).join(", ")}`,
          404,
        );
      if (!ask && pending.length > 1)
        throw terminal(
          `Session ${ctx.key} waits for ${pending.length} answers; name the call (${pending.map((p) => `${p.toolUseId} ${p.display}`).join("; ")})`,
          409,
        );
      const chosen = (ask ?? pending[0]) as PendingAsk;
      ctx.resolveAwakeable(chosen.awakeableId, {
        approve,
        ...(body?.message !== undefined ? { message: body.message } : {}),
      });
      return chosen;
    },
  );
}

/** The session's workspace for a prompt: the stored one, or the first prompt's (stored then); checked on this worker. */
async function promptWorkspace(
  ctx: restate.ObjectContext,
  options: DurableAgentOptions,
  prompt: TurnRequest["prompt"],
): Promise<string | undefined> {
  const stored = (await ctx.get<string>(STATE.workspace)) ?? undefined;
  let workspace: string | undefined;
  try {
    workspace =
      prompt && (stored === undefined || prompt.workspace !== undefined)
        ? options.workspace?.(ctx.key, prompt.workspace)
        : stored;
  } catch (error) {
    throw terminal(error instanceof Error ? error.message : String(error));
  }
  if (stored !== undefined && workspace !== stored)
    throw terminal(`Session ${ctx.key} works in ${stored}; a prompt cannot move it to ${prompt?.workspace}`);
  if (workspace === undefined && prompt?.workspace !== undefined)
    throw terminal("This agent takes no workspace; send the prompt without one");
  if (workspace !== undefined && !isFolder(workspace))
    throw terminal(
      `The workspace of session ${ctx.key} (${workspace}) is not on this worker. Each worker must see every session's workspace at the same path (a shared volume holding one checkout per session).`,
      412,
    );
  if (stored === undefined && workspace !== undefined) ctx.set(STATE.workspace, workspace);
  return workspace;
}

/**
 * mitsu sessions as a Restate virtual object, keyed by the session id: prompts to one session queue (one
 * writer), sessions run in parallel on any worker. A prompt runs as a chain of invocations of the session's
 * `turn` handler, a few model turns each (`turnsPerInvocation`), called by the session's driver object
 * (`turn-driver.ts`); their model and tool calls are journaled (`restateJournal`), so a worker that dies mid-run
 * loses nothing: another one resumes, without calling the model again for a finished turn or running a finished
 * tool again. The transcript lives in the object's state, append-only. A permission "ask" suspends the session
 * until `approve` / `deny` (or the deadline, a denial).
 *
 * Handlers: `turn` is exclusive (the driver's calls only); `prompt` and `task` (a sub-agent's run, called by its
 * parent) are shared and queue on the driver's exclusive handlers; `transcript`, `pending` (a session's questions
 * and its running sub-agents'), `approve`, `deny` and `events` are shared. Returns the session object, its driver
 * and its watch object (`session-watch.ts`): a worker serves all three.
 */
export function createDurableAgent(options: DurableAgentOptions) {
  ensurePromiseWithResolvers();
  const name = options.name ?? DEFAULT_SESSION_OBJECT;
  const cache = options.ingressUrl ? new TranscriptCache(options.ingressUrl, name) : undefined;
  const batch = options.turnsPerInvocation ?? DEFAULT_TURNS_PER_INVOCATION;
  const live = options.liveEvents !== false;
  // The model and tool calls running in this process, for an attempt that follows a cut-off one.
  const inFlight = new InFlightSteps();

  /** A call to the session's driver (the queue of its runs), from a shared handler. */
  const toDriver = <I, O>(ctx: restate.ObjectSharedContext, method: string, parameter: I) =>
    jsonCall<I, O>(ctx, driverName(name), method, ctx.key, parameter);

  /**
   * One invocation's turns of a run, `own` being what differs between a prompt's and a task's: the model calls
   * it may make are a batch, or what is left of the run's limit.
   */
  const runTurn = async (
    ctx: restate.ObjectContext,
    body: TurnRequest,
    stored: { messages: Message[]; digest: string | undefined },
    own: Pick<
      RunSessionOptions,
      "setup" | "system" | "tools" | "permissions" | "messages" | "workspace" | "spawnTools"
    >,
  ): Promise<TurnResponse> => {
    const maxTurns = body.maxTurns ?? own.setup.maxTurns ?? DEFAULT_MAX_TURNS;
    const result = await runSession({
      ...own,
      ctx,
      name,
      stored: stored.messages.length,
      digest: stored.digest,
      ...(options.stepMarks ? { marks: options.stepMarks } : {}),
      ...(cache ? { cache } : {}),
      askTimeoutMs: body.askTimeoutMs,
      turn: body.turn,
      turns: Math.max(1, Math.min(batch, maxTurns - body.turn + 1)),
      liveEvents: live,
      inFlight,
    });
    return turnResponse(result, maxTurns, body.task ? stored.messages.length : undefined);
  };

  const session = restate.object({
    name,
    handlers: {
      /** A prompt, queued behind the session's running one (the driver's exclusive handler) and run turn by turn. */
      prompt: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext, body: PromptRequest): Promise<PromptResponse> => {
          const problem = promptRequestProblem(body);
          if (problem) throw terminal(`Malformed prompt request: ${problem}`);
          if (!SESSION_ID.test(ctx.key))
            throw terminal(
              `Invalid session id ${JSON.stringify(ctx.key)}: use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit`,
            );
          return toDriver<PromptRequest, PromptResponse>(ctx, "prompt", body);
        },
      ),

      /** A sub-agent's run (called by its parent's Task call), turn by turn through the driver. */
      task: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext, body: TaskRequest): Promise<AgentResult> => {
          const request = body?.request;
          if (typeof request !== "object" || request === null || typeof request.prompt !== "string")
            throw terminal("Malformed task request: request.prompt is required");
          return toDriver<TaskRequest, AgentResult>(ctx, "task", body);
        },
      ),

      /** One model turn of a run (called by the driver only: not through the ingress, where it could cut in). */
      turn: restate.handlers.object.exclusive(
        { ingressPrivate: true },
        async (ctx: restate.ObjectContext, body: TurnRequest): Promise<TurnResponse> =>
          body.task ? taskTurn(ctx, body, body.task) : promptTurn(ctx, body),
      ),

      transcript: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<Message[]> => {
          const messages = await readTranscript(ctx);
          if (messages.length === 0) throw terminal(`Unknown session: ${ctx.key}`, 404);
          return messages;
        },
      ),

      /** The session's stored tool-state changes (a worker that has not seen the session reads them here). */
      toolStateChanges: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<Record<string, unknown>[]> =>
          readToolStateChanges(ctx, (await ctx.get<number>(STATE.toolStates)) ?? 0),
      ),

      pending: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<PendingAsk[]> => allPending(ctx, name),
      ),

      approve: answerHandler(name, true),
      deny: answerHandler(name, false),
      // What a follower has not seen yet, as it happens (`mitsu remote follow`).
      ...eventsHandlers(name, live),
    },
  });

  async function promptTurn(ctx: restate.ObjectContext, body: TurnRequest): Promise<TurnResponse> {
    const stored = await storedTranscript(ctx, cache);
    const first = body.turn === 1;
    const prompt = first ? body.prompt : undefined;
    if (first && !prompt) throw terminal("Malformed turn request: the first turn needs the prompt");
    const workspace = await promptWorkspace(ctx, options, prompt);

    const setup = await setUp(options, { id: ctx.key, workspace });
    try {
      let system = await readSystem(ctx);
      if (system === undefined) {
        system = systemBlocks(setup.system);
        ctx.set(STATE.system, system);
      }
      return await runTurn(ctx, body, stored, {
        setup,
        system,
        tools: setup.tools ?? [],
        permissions: setup.permissions,
        messages: prompt
          ? await withFirstMessage(ctx, setup, appendPrompt(stored.messages, prompt.prompt))
          : stored.messages,
        workspace,
        spawnTools: setup.spawnTools ?? ["Task"],
      });
    } finally {
      await setup.close?.();
    }
  }

  async function taskTurn(
    ctx: restate.ObjectContext,
    body: TurnRequest,
    task: TaskRequest,
  ): Promise<TurnResponse> {
    const { request } = task;
    const first = body.turn === 1;
    if (first && (await ctx.get<number>(STATE.length)) !== null)
      throw terminal(`Session ${ctx.key} ran its task already`, 409);
    const workspace = task.workspace;
    if (workspace !== undefined) {
      if (!isFolder(workspace))
        throw terminal(`The workspace of session ${ctx.key} (${workspace}) is not on this worker.`, 412);
      if (first) ctx.set(STATE.workspace, workspace);
    }
    const setup = await setUp(options, { id: ctx.key, workspace });
    try {
      const spawnTools = setup.spawnTools ?? ["Task"];
      // A sub-agent may start its own (each a durable call too), down to MAX_NESTING levels; a read-only one not.
      const depth = ctx.key.split(".").length - 1;
      const nests = setup.spawn !== undefined && depth < MAX_NESTING && request.readOnly !== true;
      const offered = (setup.tools ?? []).filter((tool) => nests || !spawnTools.includes(tool.name));
      const unknown = (request.tools ?? []).filter((name) => !offered.some((tool) => tool.name === name));
      if (unknown.length > 0)
        return {
          reason: "error",
          more: false,
          turns: 0,
          usage: emptyUsage(),
          text: "",
          messages: 0,
          maxTurns: 0,
          error: { type: "invalid_tools", message: `A sub-agent cannot use ${unknown.join(", ")} here` },
        };
      const tools = request.tools ? offered.filter((tool) => request.tools?.includes(tool.name)) : offered;
      const system = systemBlocks(request.system);
      if (first) ctx.set(STATE.system, system);
      const permissions = readOnlyPermissions(setup.permissions, request.readOnly === true);
      const { spawn: _nested, ...leafSetup } = setup;
      const childSetup = nests ? setup : leafSetup;
      const stored = first ? { messages: [], digest: EMPTY_DIGEST } : await storedTranscript(ctx, cache);
      return await runTurn(ctx, body, stored, {
        setup: childSetup,
        system,
        tools,
        permissions,
        messages: first ? appendPrompt([], request.prompt) : stored.messages,
        workspace,
        spawnTools: nests ? spawnTools : [],
      });
    } finally {
      await setup.close?.();
    }
  }

  return [
    session,
    createTurnDriver(name, options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS),
    createSessionWatch(name),
  ] as const;
}

/** The stored transcript and its digest (undefined for a session stored before digests), from `cache` if any. */
async function storedTranscript(
  ctx: restate.ObjectContext,
  cache: TranscriptCache | undefined,
): Promise<{ messages: Message[]; digest: string | undefined }> {
  if (cache) return cache.read(ctx);
  const messages = await readTranscript(ctx);
  const digest = messages.length === 0 ? EMPTY_DIGEST : ((await ctx.get<string>(STATE.digest)) ?? undefined);
  return { messages, digest };
}

/**
 * A turn's result for the driver; a task's (`taskStored`: its transcript's length before the turn) carries its new
 * assistant messages.
 */
function turnResponse(
  result: AgentResult & { turns: number; stored: number },
  maxTurns: number,
  taskStored: number | undefined,
): TurnResponse {
  const response: TurnResponse = {
    reason: result.reason,
    more: result.reason === "max_turns",
    turns: result.turns,
    text: answerText(result.lastMessage),
    usage: { ...emptyUsage(), ...result.usage },
    messages: result.stored,
    maxTurns,
  };
  if (result.error) response.error = result.error;
  if (taskStored !== undefined) {
    response.assistant = result.messages
      .slice(taskStored)
      .filter((message): message is AssistantMessage => message.role === "assistant");
    if (result.lastMessage) response.lastMessage = result.lastMessage;
  }
  return response;
}

/**
 * The setup for one invocation. One that throws is a configuration error (an unknown model, a missing key): the
 * prompt fails with its message instead of being retried forever.
 */
async function setUp(options: DurableAgentOptions, session: DurableSession): Promise<DurableAgentSetup> {
  try {
    return await options.setup(session);
  } catch (error) {
    if (error instanceof restate.TerminalError) throw error;
    throw terminal(
      `The worker could not set up the agent for session ${session.id}: ${error instanceof Error ? error.message : String(error)}`,
      500,
    );
  }
}

/** The prompt's messages, the first message of a session through `setup.firstMessage` (one journaled step). */
async function withFirstMessage(
  ctx: restate.ObjectContext,
  setup: DurableAgentSetup,
  messages: Message[],
): Promise<Message[]> {
  const firstMessage = setup.firstMessage;
  if (!firstMessage || messages.length !== 1) return messages;
  const prepared = await ctx.run("first message", () => firstMessage(messages[0] as Message));
  return [prepared];
}

function isFolder(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}
