import type { BodyWriter } from "../body-writer.js";
import { imageReplacer } from "../image-weight.js";
import { promptText } from "../prefix-cache.js";
import { bodyWriter, commitTurn, runScript, type TurnPlan, type TurnTokens } from "../scripted-turn.js";
import type { Exchange, SimContext } from "../sim-context.js";
import type { SimTurn } from "../types.js";
import { OPENAI_CACHE_INCREMENT } from "./openai-cache-increment.js";
import {
  invalidError,
  type OpenAIError,
  type OpenAIInvalid,
  openAIFaultError,
  openAIRejected,
  openAISender,
  sendOpenAIError,
} from "./openai-error.js";

/**
 * What both OpenAI protocols do with a request before rendering a turn: a request id, the key and JSON
 * checks, the protocol's validation (a 400 in OpenAI's shape), then the head of the script.
 */
export async function handleOpenAIRequest<Body>(
  ctx: SimContext,
  ex: Exchange,
  validate: (body: unknown) => OpenAIInvalid | undefined,
  serve: (turn: SimTurn, requestId: string, body: Body) => Promise<void>,
): Promise<void> {
  const requestId = ctx.ids.next("req_");
  if (openAIRejected(ex, requestId)) return;
  const invalid = validate(ex.log.body);
  if (invalid) return sendOpenAIError(ex, requestId, 400, invalidError(invalid));
  const body = ex.log.body as Body;
  await runScript(ctx, ex, openAISender(ex, requestId), (turn) => serve(turn, requestId, body));
}

/** A planned OpenAI turn, committed: its tokens, headers, body writer and mid-stream error (if a fault asks). */
export interface OpenAITurn {
  tokens: TurnTokens;
  headers: Record<string, string>;
  writer: BodyWriter;
  errorFault: { status: number; error: OpenAIError } | undefined;
}

/**
 * Accounts the prompt in the automatic prefix cache of `model` (both protocols share OpenAI's cache, by
 * 128-token increments), commits the turn and prepares its answer.
 */
export function commitOpenAITurn(
  ctx: SimContext,
  ex: Exchange,
  requestId: string,
  planned: TurnPlan,
  model: string,
  promptParts: unknown[],
): OpenAITurn {
  const prompt = promptText(promptParts, imageReplacer("openai", ctx.options.charsPerToken));
  const account = ctx.prefixCache.account(`openai:${model}`, prompt, OPENAI_CACHE_INCREMENT);
  const { fault } = planned;
  return {
    tokens: commitTurn(ctx, ex, planned, account),
    headers: { "x-request-id": requestId, "openai-processing-ms": "1" },
    writer: bodyWriter(ex, fault),
    errorFault: fault?.kind === "error-event" ? openAIFaultError(fault.errorType) : undefined,
  };
}
