import { existsSync, statSync } from "node:fs";
import * as restate from "@restatedev/restate-sdk";
import { appendPrompt } from "../harness/append-prompt.js";
import type { AgentResult } from "../loop/agent-event.js";
import { type AssistantMessage, emptyUsage, type Message, type TextBlock } from "../messages/index.js";
import type { DurableAgentSetup, DurablePermissions, DurableSession } from "./durable-agent-setup.js";
import { jsonSerde } from "./json-serde.js";
import type { PendingAsk } from "./pending-ask.js";
import { ensurePromiseWithResolvers } from "./promise-with-resolvers.js";
import {
  type AnswerRequest,
  answerRequestProblem,
  type PromptRequest,
  type PromptResponse,
  promptRequestProblem,
} from "./prompt-request.js";
import { childResult, runSession, type TaskRequest } from "./run-session.js";
import { DEFAULT_SESSION_OBJECT } from "./session-object-name.js";
import { readPending, readSystem, readTranscript, STATE } from "./session-state.js";

const DEFAULT_ASK_TIMEOUT_MS = 24 * 3_600_000;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The session's questions and those of the sub-agents it waits on (each names its session). */
async function allPending(ctx: restate.ObjectSharedContext, name: string): Promise<PendingAsk[]> {
  const own = await readPending(ctx);
  const children = (await ctx.get<string[]>(STATE.children)) ?? [];
  const theirs = await Promise.all(
    children.map((key) =>
      ctx.genericCall<undefined, PendingAsk[]>({
        service: name,
        method: "pending",
        key,
        parameter: undefined,
        inputSerde: jsonSerde(),
        outputSerde: jsonSerde(),
      }),
    ),
  );
  return [...own, ...theirs.flat()];
}

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

/**
 * mitsu sessions as a Restate virtual object, keyed by the session id: prompts to one session queue (one
 * writer), sessions run in parallel on any worker. Each prompt is one invocation of `runAgent`, whose model
 * and tool calls are journaled (`restateJournal`), so a worker that dies mid-run loses nothing: another one
 * resumes, without calling the model again for a finished turn or running a finished tool again. The
 * transcript lives in the object's state, append-only. A permission "ask" suspends the session until
 * `approve` / `deny` (or the deadline, a denial).
 *
 * Handlers: `prompt` and `task` (a sub-agent's run, called by its parent) are exclusive; `transcript`,
 * `pending` (a session's questions and its running sub-agents'), `approve` and `deny` are shared.
 */
export function createDurableAgent(options: DurableAgentOptions) {
  ensurePromiseWithResolvers();
  const name = options.name ?? DEFAULT_SESSION_OBJECT;

  const answer = (approve: boolean) =>
    restate.handlers.object.shared(
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

  return restate.object({
    name,
    handlers: {
      prompt: async (ctx: restate.ObjectContext, body: PromptRequest): Promise<PromptResponse> => {
        const problem = promptRequestProblem(body);
        if (problem) throw terminal(`Malformed prompt request: ${problem}`);
        if (!SESSION_ID.test(ctx.key))
          throw terminal(
            `Invalid session id ${JSON.stringify(ctx.key)}: use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit`,
          );
        const history = await readTranscript(ctx);
        const stored = (await ctx.get<string>(STATE.workspace)) ?? undefined;
        let workspace: string | undefined;
        try {
          workspace =
            stored === undefined || body.workspace !== undefined
              ? options.workspace?.(ctx.key, body.workspace)
              : stored;
        } catch (error) {
          throw terminal(error instanceof Error ? error.message : String(error));
        }
        if (stored !== undefined && workspace !== stored)
          throw terminal(
            `Session ${ctx.key} works in ${stored}; a prompt cannot move it to ${body.workspace}`,
          );
        if (workspace === undefined && body.workspace !== undefined)
          throw terminal("This agent takes no workspace; send the prompt without one");
        if (workspace !== undefined && !isFolder(workspace))
          throw terminal(
            `The workspace of session ${ctx.key} (${workspace}) is not on this worker. Each worker must see every session's workspace at the same path (a shared volume holding one checkout per session).`,
            412,
          );
        if (stored === undefined && workspace !== undefined) ctx.set(STATE.workspace, workspace);

        const setup = await setUp(options, { id: ctx.key, workspace });
        try {
          let system = await readSystem(ctx);
          if (system === undefined) {
            system = systemBlocks(setup.system);
            ctx.set(STATE.system, system);
          }
          const result = await runSession({
            ctx,
            name,
            setup,
            system,
            tools: setup.tools ?? [],
            permissions: setup.permissions,
            messages: await withFirstMessage(ctx, setup, appendPrompt(history, body.prompt)),
            stored: history.length,
            maxTurns: body.maxTurns ?? setup.maxTurns,
            askTimeoutMs: body.askTimeoutMs ?? options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
            workspace,
            spawnTools: setup.spawnTools ?? ["Task"],
          });
          const response: PromptResponse = {
            reason: result.reason,
            text: answerText(result.lastMessage),
            usage: { ...emptyUsage(), ...result.usage },
            messages: (await ctx.get<number>(STATE.length)) ?? 0,
          };
          if (result.error) response.error = result.error;
          return response;
        } finally {
          await setup.close?.();
        }
      },

      task: async (ctx: restate.ObjectContext, body: TaskRequest): Promise<AgentResult> => {
        const request = body?.request;
        if (typeof request !== "object" || request === null || typeof request.prompt !== "string")
          throw terminal("Malformed task request: request.prompt is required");
        if ((await ctx.get<number>(STATE.length)) !== null)
          throw terminal(`Session ${ctx.key} ran its task already`, 409);
        const workspace = body.workspace;
        if (workspace !== undefined) {
          if (!isFolder(workspace))
            throw terminal(`The workspace of session ${ctx.key} (${workspace}) is not on this worker.`, 412);
          ctx.set(STATE.workspace, workspace);
        }
        const setup = await setUp(options, { id: ctx.key, workspace });
        try {
          const spawnTools = setup.spawnTools ?? ["Task"];
          const offered = (setup.tools ?? []).filter((tool) => !spawnTools.includes(tool.name));
          const unknown = (request.tools ?? []).filter((name) => !offered.some((tool) => tool.name === name));
          if (unknown.length > 0)
            return {
              reason: "error",
              messages: [],
              usage: emptyUsage(),
              error: { type: "invalid_tools", message: `A sub-agent cannot use ${unknown.join(", ")} here` },
            };
          const tools = request.tools
            ? offered.filter((tool) => request.tools?.includes(tool.name))
            : offered;
          const system = systemBlocks(request.system);
          ctx.set(STATE.system, system);
          const permissions = readOnlyPermissions(setup.permissions, request.readOnly === true);
          const { spawn: _nested, ...childSetup } = setup;
          const result = await runSession({
            ctx,
            name,
            setup: childSetup,
            system,
            tools,
            permissions,
            messages: appendPrompt([], request.prompt),
            stored: 0,
            maxTurns: request.maxTurns ?? setup.maxTurns,
            askTimeoutMs: options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
            workspace,
            spawnTools: [],
          });
          return childResult(result);
        } finally {
          await setup.close?.();
        }
      },

      transcript: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<Message[]> => {
          const messages = await readTranscript(ctx);
          if (messages.length === 0) throw terminal(`Unknown session: ${ctx.key}`, 404);
          return messages;
        },
      ),

      pending: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<PendingAsk[]> => allPending(ctx, name),
      ),

      approve: answer(true),
      deny: answer(false),
    },
  });
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
