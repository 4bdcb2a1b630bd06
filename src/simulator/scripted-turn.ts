import { BodyWriter } from "./body-writer.js";
import { codePointLength } from "./chunk-text.js";
import { retryHeaders } from "./fault-status.js";
import { type PlannedTurn, planTurn } from "./plan-turn.js";
import type { PrefixAccount } from "./prefix-cache.js";
import { SimScriptError } from "./script-error.js";
import type { Exchange, SimContext } from "./sim-context.js";
import { sleep } from "./sleep.js";
import { estimateTokens } from "./token-estimate.js";
import type { SimFault, SimTurn } from "./types.js";
import { writeJsonHead } from "./write-json-head.js";

/**
 * Answers an error in a protocol's shape and logs it. `message` undefined: the protocol's usual message for
 * the status.
 */
export type SendError = (
  status: number,
  message: string | undefined,
  headers?: Record<string, string>,
) => void;

const NO_RETRY = { "x-should-retry": "false" };

/**
 * Serves a validated request from the head of the script, the same way for every protocol: an exhausted
 * script is a 500 that clients must not retry, an http fault answers with its status and retry headers, and
 * otherwise `serve` renders the turn. A SimScriptError (a script the API could never produce) is a 500 too.
 */
export async function runScript(
  ctx: SimContext,
  ex: Exchange,
  sendError: SendError,
  serve: (turn: SimTurn) => Promise<void>,
): Promise<void> {
  try {
    const step = ctx.queue.next(ex.log);
    if (step.kind === "exhausted") {
      return sendError(500, `simulator script exhausted after ${step.served} turns`, NO_RETRY);
    }
    if (step.kind === "http-fault") {
      ex.log.fault = "http";
      return sendError(step.fault.status, undefined, retryHeaders(step.fault));
    }
    if (step.turn.latencyMs !== undefined) await sleep(step.turn.latencyMs);
    await serve(step.turn);
  } catch (error) {
    if (!(error instanceof SimScriptError)) throw error;
    sendError(500, `simulator script error: ${error.message}`, NO_RETRY);
  }
}

/** A turn with the output limit applied, and whether the request's own limit did the cutting. */
export interface TurnPlan {
  plan: PlannedTurn;
  fault: SimFault | undefined;
  /** A cut by the request's own max tokens leaves the turn queued (see commitTurn). */
  cutByRequestLimit: boolean;
}

/** Applies the request's max tokens (undefined: no limit) and a `max-tokens` fault to a turn. */
export function planScripted(
  ctx: SimContext,
  turn: SimTurn,
  maxTokens: number | undefined,
  newToolId: () => string,
): TurnPlan {
  const fault = turn.fault;
  const limitByRequest =
    maxTokens === undefined ? Number.POSITIVE_INFINITY : maxTokens * ctx.options.charsPerToken;
  let limitChars = limitByRequest;
  if (fault?.kind === "max-tokens") limitChars = Math.min(limitChars, fault.afterChars);
  const plan = planTurn(turn, limitChars, newToolId);
  const cutByRequestLimit = plan.cut && !(fault?.kind === "max-tokens" && fault.afterChars < limitByRequest);
  return { plan, fault, cutByRequestLimit };
}

/** Token counts of a served turn, in the neutral terms every protocol renders. */
export interface TurnTokens {
  /** The whole prompt, cached part included. */
  promptTokens: number;
  cachedTokens: number;
  /** Everything generated, reasoning included. */
  outputTokens: number;
  /** The thinking part of outputTokens. */
  reasoningTokens: number;
}

/**
 * Commits a planned turn once nothing can fail any more: consumes it from the script (unless the request's own
 * max tokens cut it: the same model asked again with a larger limit generates the same answer, which is what a
 * client's retry-with-more-tokens expects), and logs usage (Anthropic names) and the fault applied.
 */
export function commitTurn(
  ctx: SimContext,
  ex: Exchange,
  turn: TurnPlan,
  account: PrefixAccount,
): TurnTokens {
  const { charsPerToken } = ctx.options;
  let thinkingChars = 0;
  for (const block of turn.plan.blocks)
    if (block.type === "thinking") thinkingChars += codePointLength(block.content);
  const tokens: TurnTokens = {
    promptTokens: account.promptTokens,
    cachedTokens: account.cachedTokens,
    outputTokens: estimateTokens(turn.plan.outputChars, charsPerToken),
    reasoningTokens: estimateTokens(thinkingChars, charsPerToken),
  };
  if (!turn.cutByRequestLimit) ctx.queue.consume();
  ex.log.usage = {
    input_tokens: tokens.promptTokens - tokens.cachedTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: tokens.cachedTokens,
    output_tokens: tokens.outputTokens,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  };
  if (turn.fault && turn.fault.kind !== "http") ex.log.fault = turn.fault.kind;
  return tokens;
}

/** The body writer of a served turn, with a `disconnect` or `stall` fault applied. */
export function bodyWriter(ex: Exchange, fault: SimFault | undefined): BodyWriter {
  if (fault?.kind === "stall") return new BodyWriter(ex.res, fault.afterBytes, "stall");
  return new BodyWriter(ex.res, fault?.kind === "disconnect" ? fault.afterBytes : undefined);
}

/** A non-streaming answer takes as long as its stream would have: one `delayMs` per delta. */
export function generationDelay(ctx: SimContext, plan: PlannedTurn): Promise<void> {
  const { textChunk, inputChunk, delayMs } = ctx.options;
  let steps = 0;
  for (const block of plan.blocks) {
    const size = block.type === "tool_use" ? inputChunk : textChunk;
    steps += Math.ceil(codePointLength(block.content) / Math.max(1, size));
  }
  return sleep(steps * delayMs);
}

/** Writes a 200 JSON answer through the body writer (so a disconnect fault applies to it too). */
export function sendJson(
  ex: Exchange,
  writer: BodyWriter,
  json: string,
  headers: Record<string, string>,
): void {
  writeJsonHead(ex, 200, json, headers);
  writer.write(json);
  writer.end();
}

/** Starts a 200 SSE answer. */
export function startSse(ex: Exchange, headers: Record<string, string>): void {
  ex.log.status = 200;
  ex.res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    ...headers,
  });
}
