import type { StopReason, Usage } from "../../messages/index.js";
import type { SseEvent } from "../../stream/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { DecodeContext } from "../decode/decode-context.js";
import { cutOutcome, decodeSseAttempt, type Outcome, parsePayload } from "../decode/decode-sse-attempt.js";
import { MessageAssembler } from "../decode/message-assembler.js";
import { parseOpenAIStreamError } from "../http/parse-openai-error.js";
import { ProviderError } from "../http/provider-error.js";
import type { StreamAttemptResult } from "../http/stream-with-retries.js";
import { isPlainObject } from "../is-plain-object.js";
import { RESPONSES_META, type ResponsesBlockMeta } from "./encode-request.js";

export interface ResponsesDecodeOptions extends DecodeContext {}

/** Decodes one Responses API stream (see `ResponsesStreamHandler`) for `streamWithRetries`. */
export function decodeResponsesStream(
  response: Response,
  options: ResponsesDecodeOptions = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const asm = new MessageAssembler({ live: options.live, usedToolIds: options.usedToolIds });
  return decodeSseAttempt(response, asm, new ResponsesStreamHandler(asm), options);
}

type Json = Record<string, unknown>;

/**
 * Responses API events into neutral events, keyed by output item id:
 * - a `reasoning` item is a thinking block (summary and reasoning-text deltas); at `output_item.done` the item
 *   (`id`, `summary`, `encrypted_content`) goes into the block's meta, to be sent back next turn;
 * - a `message` item is a text block (`output_text` and `refusal` deltas), its `phase` kept in meta;
 * - a `function_call` item is a tool call: `function_call_arguments.delta` through the accumulator, and the
 *   full `arguments` of `.done` (or of the finished item) as a cross-check that wins if they differ;
 * - any other item type (server-side tools) is kept whole as an unknown block.
 * Terminal: `response.completed` (usage, with cached input tokens apart), `response.incomplete`
 * (`max_output_tokens` → max_tokens, `content_filter` → refusal), `response.failed` and `error` → error.
 */
export class ResponsesStreamHandler {
  private refused = false;
  /** The last summary part seen per reasoning item, to separate parts with a blank line. */
  private readonly summaryPart = new Map<string, number>();
  private readonly phases = new Map<string, string>();
  /** Function call items opened so far. */
  private readonly tools = new Set<string>();

  constructor(private readonly asm: MessageAssembler) {}

  frame(event: SseEvent): Outcome | undefined {
    const payload = parsePayload(event.data);
    if (!isPlainObject(payload)) return undefined;
    const type = typeof payload.type === "string" ? payload.type : event.event;
    switch (type) {
      case "response.created":
      case "response.in_progress":
        this.started(payload.response);
        return undefined;
      case "response.output_item.added":
        if (isPlainObject(payload.item)) this.itemAdded(payload.item);
        return undefined;
      case "response.output_text.delta":
        this.text(payload);
        return undefined;
      case "response.refusal.delta":
        this.refused = true;
        this.text(payload);
        return undefined;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.reasoning(
          payload,
          type === "response.reasoning_summary_text.delta" ? "summary_index" : "content_index",
        );
        return undefined;
      case "response.function_call_arguments.delta":
        if (typeof payload.item_id === "string" && typeof payload.delta === "string") {
          this.asm.toolDelta(payload.item_id, payload.delta);
        }
        return undefined;
      case "response.function_call_arguments.done":
        if (typeof payload.item_id === "string" && typeof payload.arguments === "string") {
          this.asm.close(payload.item_id, { fullArguments: payload.arguments });
        }
        return undefined;
      case "response.output_item.done":
        if (isPlainObject(payload.item)) this.itemDone(payload.item);
        return undefined;
      case "response.completed":
        return this.completed(payload.response);
      case "response.incomplete":
        return this.incomplete(payload.response);
      case "response.failed":
        return { stopReason: "error", error: failedError(payload.response), incomplete: true };
      case "error":
        return { stopReason: "error", error: parseOpenAIStreamError(payload), incomplete: true };
      default:
        // content_part.added/done, output_text.done, annotations, keep-alives: nothing the message needs.
        return undefined;
    }
  }

  end(): Outcome {
    return cutOutcome("OpenAI Responses");
  }

  private started(response: unknown): void {
    if (!isPlainObject(response)) return;
    this.asm.start(str(response.model), str(response.id));
  }

  private itemAdded(item: Json): void {
    const id = str(item.id);
    if (id === undefined) return;
    if (item.type === "function_call") {
      this.tools.add(id);
      this.asm.toolStart(id, str(item.call_id) ?? id, str(item.name) ?? "");
      if (typeof item.arguments === "string") this.asm.toolDelta(id, item.arguments);
    } else if (item.type === "reasoning") {
      this.asm.openThinking(id);
    } else if (item.type === "message" && typeof item.phase === "string") {
      this.phases.set(id, item.phase);
    }
  }

  private text(payload: Json): void {
    const id = str(payload.item_id);
    if (id === undefined || typeof payload.delta !== "string" || payload.delta === "") return;
    if (!this.asm.isOpen(id)) {
      const phase = this.phases.get(id);
      this.asm.openText(id, phase === undefined ? undefined : { [RESPONSES_META]: { phase } });
    }
    this.asm.text(id, payload.delta);
  }

  private reasoning(payload: Json, partField: string): void {
    const id = str(payload.item_id);
    if (id === undefined || typeof payload.delta !== "string") return;
    const part = typeof payload[partField] === "number" ? (payload[partField] as number) : 0;
    const last = this.summaryPart.get(id);
    if (last !== undefined && part !== last) this.asm.thinking(id, "\n\n");
    this.summaryPart.set(id, part);
    this.asm.thinking(id, payload.delta);
  }

  private itemDone(item: Json): void {
    const id = str(item.id);
    if (item.type === "reasoning" && id !== undefined) {
      this.asm.openThinking(id);
      const reasoning: Json = { id, summary: Array.isArray(item.summary) ? item.summary : [] };
      if (typeof item.encrypted_content === "string") reasoning.encrypted_content = item.encrypted_content;
      const meta: ResponsesBlockMeta = { reasoning };
      this.asm.mergeMeta(id, { [RESPONSES_META]: meta });
      this.asm.close(id);
    } else if (item.type === "function_call" && id !== undefined) {
      // A call seen only whole (no `output_item.added` before it) is opened now.
      if (!this.tools.has(id)) this.itemAdded(item);
      if (typeof item.arguments === "string") this.asm.close(id, { fullArguments: item.arguments });
      else this.asm.close(id);
    } else if (item.type === "message" && id !== undefined) {
      // Web search citations (`url_citation` annotations) are only complete on the finished item.
      const annotations = Array.isArray(item.content)
        ? item.content.flatMap((part) =>
            isPlainObject(part) && Array.isArray(part.annotations) ? part.annotations : [],
          )
        : [];
      if (annotations.length > 0) this.asm.mergeMeta(id, { citations: annotations });
      this.asm.close(id);
    } else if (item.type !== "message") {
      this.asm.block({ type: "unknown", provider: RESPONSES_META, data: item });
    }
  }

  private completed(response: unknown): Outcome {
    this.usage(response);
    let stopReason: StopReason = this.asm.toolUses > 0 ? "tool_use" : "end_turn";
    if (stopReason === "end_turn" && this.refused) stopReason = "refusal";
    return { stopReason };
  }

  private incomplete(response: unknown): Outcome {
    this.usage(response);
    const details =
      isPlainObject(response) && isPlainObject(response.incomplete_details)
        ? response.incomplete_details
        : {};
    const stopReason: StopReason = details.reason === "content_filter" ? "refusal" : "max_tokens";
    // Calls still open were cut: their input is judged as received.
    this.asm.closeAll(undefined, { cut: true });
    return { stopReason };
  }

  private usage(response: unknown): void {
    if (!isPlainObject(response) || !isPlainObject(response.usage)) return;
    const raw = response.usage;
    const details = isPlainObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
    const cached = num(details.cached_tokens);
    const usage: Usage = {
      input_tokens: Math.max(0, num(raw.input_tokens) - cached),
      output_tokens: num(raw.output_tokens),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
    };
    this.asm.setUsage(usage);
  }
}

function failedError(response: unknown): ProviderError {
  const error = isPlainObject(response) && isPlainObject(response.error) ? response.error : undefined;
  if (error) return parseOpenAIStreamError({ error });
  return new ProviderError({
    message: "OpenAI API error: the response failed",
    type: "api_error",
    isRetryable: false,
  });
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
