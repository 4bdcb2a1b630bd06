import { overflowOf } from "../context-limit.js";
import { imageReplacer } from "../image-weight.js";
import { promptText } from "../prefix-cache.js";
import { reportedTokens } from "../reported-usage.js";
import {
  bodyWriter,
  commitTurn,
  generationDelay,
  planScripted,
  runScript,
  sendJson,
  startSse,
} from "../scripted-turn.js";
import { checkWebSearch, offersWebSearch } from "../server-tools.js";
import type { Exchange, SimContext } from "../sim-context.js";
import { SseWriter } from "../sse-writer.js";
import { streamPacing } from "../stream-pacing.js";
import type { SimTurn } from "../types.js";
import {
  geminiErrorForStatus,
  geminiFaultError,
  geminiRejected,
  geminiSender,
  sendGeminiError,
} from "./gemini-error.js";
import {
  geminiFinishReason,
  geminiParts,
  geminiResponse,
  geminiTurn,
  groundingMetadata,
} from "./gemini-parts.js";
import { geminiFrame, streamGemini } from "./stream-gemini.js";
import { validateGeminiRequest } from "./validate-gemini-request.js";

interface GeminiCall {
  name: string;
  args: unknown;
}

interface GeminiBody {
  contents: unknown[];
  tools?: unknown;
  systemInstruction?: unknown;
  generationConfig?: { maxOutputTokens?: number };
}

/**
 * POST /v1beta/models/{model}:streamGenerateContent?alt=sse and :generateContent: authenticate, validate, take
 * the next scripted turn, and answer it. The streaming form is served as SSE only (`alt=sse`, what every SDK
 * asks for); without it the real API streams a JSON array, which the simulator does not produce.
 */
export async function handleGenerateContent(ctx: SimContext, ex: Exchange): Promise<void> {
  if (geminiRejected(ex)) return;
  const [, model = "", method = ""] = /^\/v1beta\/models\/([^/:]+):(\w+)$/.exec(ex.log.path) ?? [];
  const stream = method === "streamGenerateContent";
  const query = new URL(ex.req.url ?? "/", "http://sim").searchParams;
  if (stream && query.get("alt") !== "sse") {
    const message = "simulator: streamGenerateContent is served as SSE only; add ?alt=sse to the URL";
    return sendGeminiError(ex, geminiErrorForStatus(400, message));
  }
  const invalid =
    validateGeminiRequest(ex.log.body) ?? ctx.thoughtSignatures.missing((ex.log.body as GeminiBody).contents);
  if (invalid) return sendGeminiError(ex, geminiErrorForStatus(400, invalid));
  const body = ex.log.body as GeminiBody;
  await runScript(ctx, ex, geminiSender(ex), (turn) => serveTurn(ctx, ex, { body, model, stream }, turn));
}

async function serveTurn(
  ctx: SimContext,
  ex: Exchange,
  request: { body: GeminiBody; model: string; stream: boolean },
  turn: SimTurn,
): Promise<void> {
  const { body, model } = request;
  const maxTokens = body.generationConfig?.maxOutputTokens;
  const prompt = promptText(
    [body.tools ?? [], body.systemInstruction ?? null, ...body.contents],
    imageReplacer("gemini", ctx.options.charsPerToken),
  );
  const overflow = overflowOf(ctx, model, prompt.length, maxTokens, false);
  if (overflow) {
    const message = `The input token count (${overflow.promptTokens}) exceeds the maximum number of tokens allowed (${overflow.window}).`;
    return sendGeminiError(ex, geminiErrorForStatus(400, message));
  }
  // Gemini gives calls no ids; the planner still wants one per tool_use.
  checkWebSearch(turn, offersWebSearch("gemini", body.tools), "Gemini");
  const planned = planScripted(ctx, turn, maxTokens, () => ctx.ids.next("call_"));
  const gemini = geminiTurn(planned.plan);
  for (const part of geminiParts(gemini)) {
    if (part.thoughtSignature !== undefined) ctx.thoughtSignatures.issue(part.functionCall as GeminiCall);
  }
  const { fault } = planned;
  const account = ctx.prefixCache.account(`gemini:${model}`, prompt);
  const tokens = reportedTokens(ctx, commitTurn(ctx, ex, planned, account));
  const identity = { model, responseId: ctx.ids.next("") };
  const writer = bodyWriter(ex, fault);
  const errorFault = fault?.kind === "error-event" ? geminiFaultError(fault.errorType) : undefined;

  if (request.stream) {
    startSse(ex, {});
    const events = new SseWriter(writer, fault?.kind === "error-event" ? fault.afterEvents : undefined, () =>
      errorFault ? geminiFrame({ error: errorFault }) : "",
    );
    await streamGemini({
      turn: gemini,
      tokens,
      identity,
      events,
      ...streamPacing(ctx, ex),
    });
    return;
  }
  await generationDelay(ctx, planned.plan);
  if (errorFault) return sendGeminiError(ex, errorFault);
  const json = JSON.stringify(
    geminiResponse(
      geminiParts(gemini),
      geminiFinishReason(planned.plan),
      tokens,
      identity,
      groundingMetadata(planned.plan),
    ),
  );
  sendJson(ex, writer, json, {});
}
