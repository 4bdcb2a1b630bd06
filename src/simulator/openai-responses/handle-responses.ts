import { overflowOf } from "../context-limit.js";
import { imageReplacer } from "../image-weight.js";
import { sendOpenAIError } from "../openai-shared/openai-error.js";
import { commitOpenAITurn, handleOpenAIRequest } from "../openai-shared/openai-turn.js";
import { promptText } from "../prefix-cache.js";
import { reportedTokens } from "../reported-usage.js";
import { generationDelay, planScripted, sendJson, startSse } from "../scripted-turn.js";
import { checkWebSearch, offersWebSearch } from "../server-tools.js";
import type { Exchange, SimContext } from "../sim-context.js";
import { SseWriter } from "../sse-writer.js";
import { streamPacing } from "../stream-pacing.js";
import type { SimTurn } from "../types.js";
import { finishedItem, itemPlans } from "./response-items.js";
import { type ResponseIdentity, responseObject } from "./response-object.js";
import { responsesFrame, streamResponse } from "./stream-response.js";
import { validateResponsesRequest } from "./validate-responses-request.js";

interface ResponsesBody {
  model: string;
  input: string | unknown[];
  instructions?: string | null;
  tools?: unknown;
  stream?: boolean | null;
  max_output_tokens?: number | null;
  include?: unknown;
}

/** POST /v1/responses: authenticate, validate, take the next scripted turn, and answer it. */
export function handleResponses(ctx: SimContext, ex: Exchange): Promise<void> {
  return handleOpenAIRequest<ResponsesBody>(ctx, ex, validateResponsesRequest, (turn, requestId, body) =>
    serveTurn(ctx, ex, requestId, body, turn),
  );
}

async function serveTurn(
  ctx: SimContext,
  ex: Exchange,
  requestId: string,
  body: ResponsesBody,
  turn: SimTurn,
): Promise<void> {
  const { options } = ctx;
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  const prompt = [body.tools ?? [], body.instructions ?? null, ...input];
  const promptChars = promptText(prompt, imageReplacer("openai", ctx.options.charsPerToken)).length;
  if (overflowOf(ctx, body.model, promptChars, body.max_output_tokens ?? undefined, true)) {
    return sendOpenAIError(ex, requestId, 400, {
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
      type: "invalid_request_error",
      param: "input",
      code: "context_length_exceeded",
    });
  }
  checkWebSearch(turn, offersWebSearch("openai-responses", body.tools), "OpenAI Responses");
  const planned = planScripted(ctx, turn, body.max_output_tokens ?? undefined, () => ctx.ids.next("call_"));
  const { plan, fault } = planned;
  const committed = commitOpenAITurn(ctx, ex, requestId, planned, body.model, prompt);
  const { headers, writer, errorFault } = committed;
  const tokens = reportedTokens(ctx, committed.tokens);
  const identity: ResponseIdentity = {
    id: ctx.ids.next("resp_"),
    model: body.model,
    createdAt: Math.floor(options.now() / 1000),
    request: ex.log.body as Record<string, unknown>,
  };
  const items = itemPlans(
    plan,
    (prefix) => ctx.ids.next(prefix),
    Array.isArray(body.include) ? body.include : [],
  );

  if (body.stream === true) {
    startSse(ex, headers);
    const events: SseWriter = new SseWriter(
      writer,
      fault?.kind === "error-event" ? fault.afterEvents : undefined,
      () => {
        if (!errorFault) return "";
        const { error } = errorFault;
        const failed = responseObject(identity, "failed", [], undefined, {
          code: error.code,
          message: error.message,
        });
        return (
          responsesFrame("error", events.events, { error }) +
          responsesFrame("response.failed", events.events + 1, { response: failed })
        );
      },
    );
    await streamResponse({
      plan,
      items,
      identity,
      tokens,
      events,
      ...streamPacing(ctx, ex),
    });
    return;
  }
  await generationDelay(ctx, plan);
  if (errorFault) return sendOpenAIError(ex, requestId, errorFault.status, errorFault.error);
  const status = plan.stopReason === "max_tokens" ? "incomplete" : "completed";
  const json = JSON.stringify(responseObject(identity, status, items.map(finishedItem), tokens));
  sendJson(ex, writer, json, headers);
}
