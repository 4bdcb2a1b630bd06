import type { BlockMeta, StopReason, Usage } from "../../messages/index.js";
import type { SseEvent } from "../../stream/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { DecodeContext } from "../decode/decode-context.js";
import { cutOutcome, decodeSseAttempt, type Outcome, parsePayload } from "../decode/decode-sse-attempt.js";
import { MessageAssembler } from "../decode/message-assembler.js";
import { newToolUseId } from "../decode/new-id.js";
import { ProviderError } from "../http/provider-error.js";
import type { StreamAttemptResult } from "../http/stream-with-retries.js";
import { isPlainObject } from "../is-plain-object.js";
import { GEMINI_META, type GeminiBlockMeta } from "./encode-request.js";
import { parseGeminiStreamError } from "./parse-gemini-error.js";
import { type PartialArg, PartialArgsWriter } from "./partial-args-writer.js";

export interface GeminiDecodeOptions extends DecodeContext {
  /** Ids for function calls that come without one (the Gemini API gives none); default random `call_…`. */
  newId?: (() => string) | undefined;
}

/** Decodes one `streamGenerateContent?alt=sse` stream (see `GeminiStreamHandler`) for `streamWithRetries`. */
export function decodeGeminiStream(
  response: Response,
  options: GeminiDecodeOptions = {},
): AsyncGenerator<StreamEvent, StreamAttemptResult> {
  const asm = new MessageAssembler({ live: options.live, usedToolIds: options.usedToolIds });
  return decodeSseAttempt(response, asm, new GeminiStreamHandler(asm, options.newId), options);
}

const REFUSALS = new Set([
  "SAFETY",
  "RECITATION",
  "PROHIBITED_CONTENT",
  "BLOCKLIST",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

const TEXT = "text";
const THOUGHT = "thought";

type Json = Record<string, unknown>;

/**
 * Gemini chunks (`GenerateContentResponse`, first candidate) into neutral events:
 * - text parts make a text block, `thought: true` parts a thinking block;
 * - a whole `functionCall {name, args}` part is one tool call (several may come in a turn); calls without an id
 *   get a fresh `call_…` id, marked `syntheticId` in meta so it is not sent back;
 * - a streamed call (Vertex `streamFunctionCallArguments`): `{name, willContinue: true}`, then `partialArgs`
 *   pieces turned into JSON text by `PartialArgsWriter` and fed to the accumulator, then a part without
 *   `willContinue` (often an empty `functionCall: {}`) ends it;
 * - a `thoughtSignature` is kept in the meta of the block whose part carried it (an empty text part carrying one
 *   makes an empty text block, so the signature goes back);
 * - other parts (code execution, inline images) are kept whole.
 * The message ends when the body ends after a `finishReason` (STOP → end_turn, or tool_use when calls were made;
 * MAX_TOKENS → max_tokens; safety-type reasons → refusal; MALFORMED_FUNCTION_CALL and other reasons → error,
 * named). `usageMetadata` is cumulative: the last one wins, reported once at the end.
 */
export class GeminiStreamHandler {
  private finishReason: string | undefined;
  private finishMessage: string | undefined;
  private blockReason: string | undefined;
  private usage: Usage | undefined;
  private calls = 0;
  /** The streamed call in progress, if any. */
  private streaming: { key: string; writer: PartialArgsWriter } | undefined;
  private readonly newId: () => string;

  constructor(
    private readonly asm: MessageAssembler,
    newId?: () => string,
  ) {
    this.newId = newId ?? (() => newToolUseId());
  }

  frame(event: SseEvent): Outcome | undefined {
    const chunk = parsePayload(event.data);
    if (!isPlainObject(chunk)) return undefined;
    if (chunk.error !== undefined) {
      return { stopReason: "error", error: parseGeminiStreamError(chunk), incomplete: true };
    }
    this.asm.start(str(chunk.modelVersion), str(chunk.responseId));
    if (isPlainObject(chunk.usageMetadata)) this.readUsage(chunk.usageMetadata);
    if (isPlainObject(chunk.promptFeedback) && typeof chunk.promptFeedback.blockReason === "string") {
      this.blockReason = chunk.promptFeedback.blockReason;
    }
    const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
    if (!isPlainObject(candidate)) return undefined;
    const content = isPlainObject(candidate.content) ? candidate.content : {};
    const parts = Array.isArray(content.parts) ? content.parts : [];
    for (const part of parts) if (isPlainObject(part)) this.part(part);
    // Grounding with Google Search: the queries run and the pages used, for whoever reads the answer's sources.
    if (isPlainObject(candidate.groundingMetadata))
      this.asm.setMeta("grounding", candidate.groundingMetadata);
    if (typeof candidate.finishReason === "string") {
      this.finishReason = candidate.finishReason;
      if (typeof candidate.finishMessage === "string") this.finishMessage = candidate.finishMessage;
      this.asm.closeAll(undefined, { cut: candidate.finishReason === "MAX_TOKENS" });
      this.streaming = undefined;
    }
    return undefined;
  }

  end(): Outcome {
    if (this.usage) this.asm.setUsage(this.usage);
    const reason = this.finishReason;
    if (reason === undefined) {
      if (this.blockReason !== undefined) return { stopReason: "refusal" };
      return cutOutcome("Gemini");
    }
    if (reason === "STOP") return { stopReason: this.asm.toolUses > 0 ? "tool_use" : "end_turn" };
    if (reason === "MAX_TOKENS") return { stopReason: "max_tokens" };
    if (REFUSALS.has(reason)) return { stopReason: "refusal" };
    const what =
      reason === "MALFORMED_FUNCTION_CALL"
        ? "Gemini produced a malformed function call (finishReason MALFORMED_FUNCTION_CALL)"
        : `Gemini stopped with finishReason ${reason}`;
    const message = this.finishMessage ? `${what}: ${this.finishMessage}` : what;
    const stopReason: StopReason = "error";
    return {
      stopReason,
      error: new ProviderError({ message, type: reason.toLowerCase(), isRetryable: false }),
    };
  }

  private part(part: Json): void {
    const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
    if (isPlainObject(part.functionCall)) {
      this.functionCall(part.functionCall, signature);
    } else if (typeof part.text === "string") {
      const key = part.thought === true ? THOUGHT : TEXT;
      this.asm.close(key === TEXT ? THOUGHT : TEXT);
      if (part.text !== "") {
        if (key === THOUGHT) this.asm.thinking(key, part.text);
        else this.asm.text(key, part.text);
      } else if (signature !== undefined) {
        // An empty part that carries a signature still makes a block, so the signature goes back.
        if (key === THOUGHT) this.asm.openThinking(key);
        else this.asm.openText(key);
      }
      if (signature !== undefined) this.asm.mergeMeta(key, meta({ thoughtSignature: signature }));
    } else if (isPlainObject(part.inlineData) && typeof part.inlineData.data === "string") {
      this.asm.closeAll(["text", "thinking"]);
      const mimeType = typeof part.inlineData.mimeType === "string" ? part.inlineData.mimeType : "image/png";
      this.asm.block({
        type: "image",
        source: { type: "base64", media_type: mimeType, data: part.inlineData.data },
      });
    } else if (Object.keys(part).length > 0) {
      this.asm.closeAll(["text", "thinking"]);
      this.asm.block({ type: "unknown", provider: GEMINI_META, data: part });
    }
  }

  private functionCall(call: Json, signature: string | undefined): void {
    this.asm.closeAll(["text", "thinking"]);
    const name = str(call.name);
    if (name !== undefined) {
      this.endStreaming();
      const key = `call:${this.calls++}`;
      const given = str(call.id);
      const data: GeminiBlockMeta = {};
      if (signature !== undefined) data.thoughtSignature = signature;
      if (given === undefined) data.syntheticId = true;
      this.asm.toolStart(key, given ?? this.newId(), name, meta(data));
      if (isPlainObject(call.args)) {
        // Whole arguments: the call is complete.
        this.asm.toolDelta(key, JSON.stringify(call.args));
        this.asm.close(key);
        return;
      }
      this.streaming = { key, writer: new PartialArgsWriter() };
    } else if (signature !== undefined && this.streaming) {
      this.asm.mergeMeta(this.streaming.key, meta({ thoughtSignature: signature }));
    }
    const streaming = this.streaming;
    if (!streaming) return;
    if (Array.isArray(call.partialArgs)) {
      for (const arg of call.partialArgs) {
        if (isPlainObject(arg)) this.asm.toolDelta(streaming.key, streaming.writer.write(arg as PartialArg));
      }
    }
    if (call.willContinue !== true) this.endStreaming();
  }

  /** Ends the streamed call in progress: its JSON closed, the block closed. */
  private endStreaming(): void {
    const streaming = this.streaming;
    if (!streaming) return;
    this.streaming = undefined;
    this.asm.toolDelta(streaming.key, streaming.writer.finish());
    this.asm.close(streaming.key);
  }

  private readUsage(raw: Json): void {
    if (raw.promptTokenCount === undefined && raw.candidatesTokenCount === undefined) return;
    const cached = num(raw.cachedContentTokenCount);
    this.usage = {
      input_tokens: Math.max(0, num(raw.promptTokenCount) - cached),
      output_tokens: num(raw.candidatesTokenCount) + num(raw.thoughtsTokenCount),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
    };
  }
}

function meta(data: GeminiBlockMeta): BlockMeta {
  return { [GEMINI_META]: data };
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
