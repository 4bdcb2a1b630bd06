import * as restate from "@restatedev/restate-sdk";
import type { AgentResult, AgentStopReason } from "../loop/agent-event.js";
import { type AssistantMessage, addUsage, emptyUsage, type Usage } from "../messages/index.js";
import { jsonCall } from "./json-serde.js";
import type { PromptRequest, PromptResponse } from "./prompt-request.js";
import type { TaskRequest } from "./run-session.js";
import { driverName } from "./session-object-name.js";
import { notifyFollowers } from "./session-watch.js";

/** The driver's state key set while a run goes on. */
const RUNNING = "running";

/** The body of a session's internal `turn` handler: one model turn of a run (a prompt's, or a task's). */
export interface TurnRequest {
  /** On a prompt's first turn: the prompt. */
  prompt?: PromptRequest;
  /** On each turn of a sub-agent's task: the task (its tools, system prompt and permissions). */
  task?: TaskRequest;
  /** The turn's number in its run, from 1 (the run's first turn; names its model step: `model turn <n>`). */
  turn: number;
  /** The run's limit on model calls, when the prompt or task names one (else the setup's). */
  maxTurns?: number;
  askTimeoutMs: number;
}

/** What one turn returns to the driver: small, since the driver's journal keeps one per turn. */
export interface TurnResponse {
  reason: AgentStopReason;
  /** The model wants another turn (the invocation ended at its limit of model calls). */
  more: boolean;
  /** The model calls this invocation made. */
  turns: number;
  usage: Usage;
  /** The text of the turn's last answer. */
  text: string;
  error?: { type: string; message: string };
  /** The transcript's length after this turn. */
  messages: number;
  /** The run's limit on model calls (the setup's, or the request's). */
  maxTurns: number;
  /** A task's turn: its assistant messages (what the Task tool reads). */
  assistant?: AssistantMessage[];
  lastMessage?: AssistantMessage;
}

/**
 * The driver of a session's runs: a virtual object keyed like the session, whose exclusive `prompt` and `task`
 * handlers queue a session's runs (one at a time) and call the session's `turn` handler for the next few model
 * turns (`turnsPerInvocation`) until the model stops. Each such call is an invocation of its own, so the journal a
 * worker replays (on HTTP/1.1, once per journaled step) holds those turns' steps only: the cost per step does not
 * grow with the session. The driver's own journal is one small entry per call.
 */
export function createTurnDriver(sessionObject: string, defaultAskTimeoutMs: number) {
  const turn = (ctx: restate.ObjectContext, request: TurnRequest) =>
    jsonCall<TurnRequest, TurnResponse>(ctx, sessionObject, "turn", ctx.key, request);

  /** Runs turns until the model stops or the limit; the responses of each turn are given to `each`. */
  async function drive(
    ctx: restate.ObjectContext,
    first: Omit<TurnRequest, "turn">,
    limit: number | undefined,
    each?: (response: TurnResponse) => void,
  ): Promise<{ last: TurnResponse; usage: Usage; reason: AgentStopReason }> {
    let usage = emptyUsage();
    // `count`: the model calls made so far, including the invocation's about to be made.
    for (let count = 1; ; count++) {
      const request: TurnRequest = { ...first, turn: count };
      if (limit !== undefined) request.maxTurns = limit;
      if (count > 1) delete request.prompt;
      const response = await turn(ctx, request);
      count += response.turns - 1;
      usage = addUsage(usage, response.usage);
      each?.(response);
      const max = limit ?? response.maxTurns;
      if (!response.more) return { last: response, usage, reason: response.reason };
      if (count >= max) return { last: response, usage, reason: "max_turns" };
    }
  }

  /** A run, with the session marked as running while it goes on (its followers woken when it starts and ends). */
  async function running<T>(ctx: restate.ObjectContext, run: () => Promise<T>): Promise<T> {
    ctx.set(RUNNING, true);
    notifyFollowers(ctx, sessionObject);
    try {
      return await run();
    } finally {
      ctx.clear(RUNNING);
      notifyFollowers(ctx, sessionObject);
    }
  }

  return restate.object({
    name: driverName(sessionObject),
    // Called by the session's own handlers only: a prompt goes through the session's `prompt`, which checks it.
    options: { ingressPrivate: true },
    handlers: {
      prompt: (ctx: restate.ObjectContext, body: PromptRequest): Promise<PromptResponse> =>
        running(ctx, async () => {
          const askTimeoutMs = body.askTimeoutMs ?? defaultAskTimeoutMs;
          const { last, usage, reason } = await drive(ctx, { prompt: body, askTimeoutMs }, body.maxTurns);
          const response: PromptResponse = { reason, text: last.text, usage, messages: last.messages };
          if (last.error) response.error = last.error;
          return response;
        }),
      /** Whether a run is going on (for the session's followers). */
      running: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<boolean> =>
          (await ctx.get<boolean>(RUNNING)) === true,
      ),
      task: (ctx: restate.ObjectContext, body: TaskRequest): Promise<AgentResult> =>
        running(ctx, async () => {
          const messages: AssistantMessage[] = [];
          let lastMessage: AssistantMessage | undefined;
          const { last, usage, reason } = await drive(
            ctx,
            { task: body, askTimeoutMs: defaultAskTimeoutMs },
            body.request.maxTurns,
            (response) => {
              messages.push(...(response.assistant ?? []));
              lastMessage = response.lastMessage ?? lastMessage;
            },
          );
          const result: AgentResult = { reason, messages, usage };
          if (lastMessage) result.lastMessage = lastMessage;
          if (last.error) result.error = last.error;
          return result;
        }),
    },
  });
}
