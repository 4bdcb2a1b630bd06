import { overflowOf } from "../context-limit.js";
import type { PlannedTurn } from "../plan-turn.js";
import { reportedUsage } from "../reported-usage.js";
import { SimScriptError } from "../script-error.js";
import {
  bodyWriter,
  generationDelay,
  planScripted,
  runScript,
  type SendError,
  sendJson,
  startSse,
} from "../scripted-turn.js";
import { checkWebSearch, offersWebSearch } from "../server-tools.js";
import type { Exchange, SimContext } from "../sim-context.js";
import { streamPacing } from "../stream-pacing.js";
import { estimateTokens } from "../token-estimate.js";
import type { SimTurn, SimUsage } from "../types.js";
import { cacheBlocks } from "./cache-blocks.js";
import { eagerToolNames } from "./eager-tools.js";
import { defaultErrorMessage, errorTypeForStatus, statusForErrorType } from "./error-body.js";
import { AnthropicEventWriter } from "./event-writer.js";
import { messageContent, messageJson } from "./message-json.js";
import { rejectedBeforeValidation, sendError } from "./send-error.js";
import { streamTurn } from "./stream-turn.js";
import { validateRequest } from "./validate-request.js";

interface MessagesBody {
  model: string;
  max_tokens: number;
  stream?: boolean;
  tools?: unknown;
  system?: unknown;
  messages: unknown[];
  stop_sequences?: unknown;
}

/** POST /v1/messages: authenticate, validate, take the next scripted turn, and answer it. */
export async function handleMessages(ctx: SimContext, ex: Exchange): Promise<void> {
  const requestId = ctx.ids.next("req_011");
  if (rejectedBeforeValidation(ex, requestId)) return;
  const invalid = validateRequest(ex.log.body);
  if (invalid) return sendError(ex, requestId, 400, "invalid_request_error", invalid);
  const body = ex.log.body as MessagesBody;
  await runScript(ctx, ex, anthropicSender(ex, requestId), (turn) =>
    serveTurn(ctx, ex, requestId, body, turn),
  );
}

/** The `SendError` of the shared script runner, in Anthropic's shape (the error type follows the status). */
function anthropicSender(ex: Exchange, requestId: string): SendError {
  return (status, message, headers = {}) => {
    const type = errorTypeForStatus(status);
    sendError(ex, requestId, status, type, message ?? defaultErrorMessage(type), headers);
  };
}

async function serveTurn(
  ctx: SimContext,
  ex: Exchange,
  requestId: string,
  body: MessagesBody,
  turn: SimTurn,
): Promise<void> {
  const { options } = ctx;
  const blocks = cacheBlocks(body, options.charsPerToken);
  const overflow = overflowOf(
    ctx,
    body.model,
    blocks.reduce((n, b) => n + b.key.length, 0),
    body.max_tokens,
    true,
  );
  if (overflow) {
    const { promptTokens: p, maxTokens: m, window: w } = overflow;
    const message =
      p > w
        ? `prompt is too long: ${p} tokens > ${w} maximum`
        : `input length and \`max_tokens\` exceed context limit: ${p} + ${m} > ${w}, decrease input length or \`max_tokens\` and try again`;
    return sendError(ex, requestId, 400, "invalid_request_error", message);
  }
  checkWebSearch(turn, offersWebSearch("anthropic", body.tools), "Anthropic");
  const eager = eagerToolNames(body.tools, ex.log.headers);
  if (body.stream === true) checkBufferedInputs(turn, eager);
  const planned = planScripted(ctx, turn, body.max_tokens, () => ctx.ids.next("toolu_01"));
  const { plan, fault } = planned;
  const message = { id: ctx.ids.next("msg_01"), model: body.model, stopSequence: stopSequenceOf(plan, body) };

  // Built before the cache is touched and the turn consumed: a script error must leave both as they were.
  const content = body.stream === true ? undefined : messageContent(plan);
  const account = ctx.cache.account(body.model, blocks);
  const usage: SimUsage = {
    input_tokens: account.inputTokens,
    cache_creation_input_tokens: account.writeTokens,
    cache_read_input_tokens: account.readTokens,
    output_tokens: estimateTokens(plan.outputChars, options.charsPerToken),
    cache_creation: {
      ephemeral_5m_input_tokens: account.write5mTokens,
      ephemeral_1h_input_tokens: account.write1hTokens,
    },
  };
  const wire = reportedUsage(ctx, usage);
  const json = content === undefined ? undefined : JSON.stringify(messageJson(content, plan, message, wire));
  // A cut by the request's own max_tokens leaves the turn queued (see commitTurn, whose usage is not Anthropic's).
  if (!planned.cutByRequestLimit) ctx.queue.consume();
  ex.log.usage = usage;
  if (fault && fault.kind !== "http") ex.log.fault = fault.kind;

  const writer = bodyWriter(ex, fault);
  const headers = { "request-id": requestId };
  if (json === undefined) {
    startSse(ex, headers);
    const events = new AnthropicEventWriter(
      writer,
      fault?.kind === "error-event" ? fault : undefined,
      requestId,
    );
    await streamTurn({
      plan,
      message,
      usage: wire,
      eager,
      events,
      ...streamPacing(ctx, ex),
    });
    return;
  }
  await generationDelay(ctx, plan);
  if (fault?.kind === "error-event") {
    const type = fault.errorType ?? "overloaded_error";
    return sendError(ex, requestId, statusForErrorType(type), type, defaultErrorMessage(type));
  }
  sendJson(ex, writer, json, headers);
}

/** A buffered tool's input is validated by the API before release, so invalid JSON there is a script bug. */
function checkBufferedInputs(turn: SimTurn, eager: ReadonlySet<string>): void {
  for (const [index, block] of turn.content.entries()) {
    if (block.type !== "tool_use" || !("rawInput" in block) || eager.has(block.name)) continue;
    if (block.rawInput === "" || isJsonObject(block.rawInput)) continue;
    throw new SimScriptError(
      `scripted block ${index}: tool_use "${block.name}" has a rawInput that is not a JSON object, but the tool ` +
        "is buffered (the real API validates buffered input before releasing it). Make the tool eager " +
        "(eager_input_streaming: true, or the fine-grained-tool-streaming beta) or script valid JSON.",
    );
  }
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function stopSequenceOf(plan: PlannedTurn, body: MessagesBody): string | null {
  if (plan.stopReason !== "stop_sequence") return null;
  const first: unknown = Array.isArray(body.stop_sequences) ? body.stop_sequences[0] : undefined;
  return typeof first === "string" ? first : "";
}
