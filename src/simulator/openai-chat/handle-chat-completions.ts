import { overflowOf } from "../context-limit.js";
import { imageReplacer } from "../image-weight.js";
import { sendOpenAIError } from "../openai-shared/openai-error.js";
import { commitOpenAITurn, handleOpenAIRequest } from "../openai-shared/openai-turn.js";
import { promptText } from "../prefix-cache.js";
import { reportedTokens } from "../reported-usage.js";
import { generationDelay, planScripted, sendJson, startSse } from "../scripted-turn.js";
import { checkWebSearch } from "../server-tools.js";
import type { Exchange, SimContext } from "../sim-context.js";
import { SseWriter } from "../sse-writer.js";
import { streamPacing } from "../stream-pacing.js";
import type { SimTurn } from "../types.js";
import { chatCompletionJson } from "./chat-completion-json.js";
import { streamChat } from "./stream-chat.js";
import { validateChatRequest } from "./validate-chat-request.js";

interface ChatBody {
  model: string;
  messages: unknown[];
  tools?: unknown;
  stream?: boolean | null;
  stream_options?: { include_usage?: unknown } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
}

/** POST /v1/chat/completions: authenticate, validate, take the next scripted turn, and answer it. */
export function handleChatCompletions(ctx: SimContext, ex: Exchange): Promise<void> {
  return handleOpenAIRequest<ChatBody>(ctx, ex, validateChatRequest, (turn, requestId, body) =>
    serveTurn(ctx, ex, requestId, body, turn),
  );
}

async function serveTurn(
  ctx: SimContext,
  ex: Exchange,
  requestId: string,
  body: ChatBody,
  turn: SimTurn,
): Promise<void> {
  const { options } = ctx;
  // max_completion_tokens is the current field; max_tokens the deprecated one that compatible servers use.
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const overflow = overflowOf(
    ctx,
    body.model,
    promptText([body.tools ?? [], ...body.messages], imageReplacer("openai", options.charsPerToken)).length,
    maxTokens,
    true,
  );
  if (overflow) {
    const { promptTokens: p, maxTokens: m, window: w } = overflow;
    const message =
      p > w
        ? `This model's maximum context length is ${w} tokens. However, your messages resulted in ${p} tokens. Please reduce the length of the messages.`
        : `This model's maximum context length is ${w} tokens. However, you requested ${p + m} tokens (${p} in the messages, ${m} in the completion). Please reduce the length of the messages or completion.`;
    return sendOpenAIError(ex, requestId, 400, {
      message,
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    });
  }
  checkWebSearch(turn, false, "OpenAI Chat Completions (which has no server-side tools)");
  const planned = planScripted(ctx, turn, maxTokens, () => ctx.ids.next("call_"));
  const { plan, fault } = planned;
  const { tokens, headers, writer, errorFault } = commitOpenAITurn(ctx, ex, requestId, planned, body.model, [
    body.tools ?? [],
    ...body.messages,
  ]);
  const wire = reportedTokens(ctx, tokens);
  const identity = {
    id: ctx.ids.next("chatcmpl-"),
    model: body.model,
    created: Math.floor(options.now() / 1000),
  };

  if (body.stream === true) {
    startSse(ex, headers);
    const events = new SseWriter(writer, fault?.kind === "error-event" ? fault.afterEvents : undefined, () =>
      errorFault ? `data: ${JSON.stringify({ error: errorFault.error })}\n\n` : "",
    );
    await streamChat({
      plan,
      identity,
      tokens: wire,
      includeUsage: body.stream_options?.include_usage === true,
      events,
      ...streamPacing(ctx, ex),
    });
    return;
  }
  await generationDelay(ctx, plan);
  if (errorFault) return sendOpenAIError(ex, requestId, errorFault.status, errorFault.error);
  sendJson(ex, writer, JSON.stringify(chatCompletionJson(plan, identity, wire)), headers);
}
