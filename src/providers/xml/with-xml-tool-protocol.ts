import type { AssistantMessage, ContentBlock, StopReason } from "../../messages/index.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { MessageAssembler, type Termination } from "../decode/message-assembler.js";
import { newToolUseId } from "../decode/new-id.js";
import { toolUseIdsOf } from "../decode/unique-tool-ids.js";
import type { CallOptions, ModelRequest, Provider } from "../provider.js";
import { renderHistory } from "./render-history.js";
import { type ToolCallToken, XmlToolCallParser } from "./tool-call-parser.js";
import { renderToolPrompt } from "./tool-prompt.js";

export interface XmlToolProtocolOptions {
  /** Ids for the calls parsed from the text; default random `xml_…`. */
  newId?: () => string;
}

/**
 * The XML-tag tool protocol on top of any provider, for models without function calling.
 *
 * Request: the tools are described in an extra system block (`renderToolPrompt`) and `tools` is sent empty;
 * history `tool_use` blocks become `<tool_call name="…">{json}</tool_call>` in the assistant text and
 * `tool_result`s become `<tool_result id="…" name="…">…</tool_result>` text in the user message.
 *
 * Stream: the inner text is parsed as it arrives (`XmlToolCallParser`): text outside tags streams as text blocks
 * (a possible tag prefix is held back until decided; whitespace right after a call is dropped), each tag becomes a
 * tool call whose body streams through the JSON accumulator (`tool-input-start/delta/end`, live strings
 * included). The message stops with `tool_use` when calls were made and the inner model ended normally.
 * A malformed call — unknown or missing attribute, a tag or body never closed, a body that is not a JSON object —
 * becomes a `tool_use` with `input_status: "invalid"` (or `incomplete` when the inner stop was max_tokens), its
 * text in `raw_input` and, for tag problems, the reason in `meta.protocolError`, so the loop answers the model
 * with a result that names the problem. Thinking, whole blocks, usage and errors of the inner stream pass through.
 */
export function withXmlToolProtocol(inner: Provider, options: XmlToolProtocolOptions = {}): Provider {
  const newId = options.newId ?? (() => newToolUseId("xml_"));
  return {
    api: inner.api,
    ...(inner.serverTools ? { serverTools: inner.serverTools } : {}),
    encode: (request) => inner.encode(toXmlRequest(request)),
    stream: (request, call) =>
      xmlStream(inner, toXmlRequest(request), call ?? {}, newId, toolUseIdsOf(request.messages)),
  };
}

/** The request the inner provider sees: tool prompt appended to the system, no tools, history as text. */
export function toXmlRequest(request: ModelRequest): ModelRequest {
  const usesTools =
    request.tools.length > 0 ||
    request.messages.some((m) => m.content.some((b) => b.type === "tool_use" || b.type === "tool_result"));
  if (!usesTools) return request;
  const system =
    request.tools.length > 0
      ? [...request.system, { type: "text" as const, text: renderToolPrompt(request.tools) }]
      : request.system;
  return { ...request, system, tools: [], messages: renderHistory(request.messages) };
}

async function* xmlStream(
  inner: Provider,
  request: ModelRequest,
  call: CallOptions,
  newId: () => string,
  usedToolIds: Set<string>,
): AsyncGenerator<StreamEvent> {
  const asm = new MessageAssembler({ live: call.liveInput, usedToolIds });
  const calls = new XmlCalls(asm, newId);
  let innerEnd: AssistantMessage | undefined;
  try {
    for await (const event of inner.stream(request, call)) {
      switch (event.type) {
        case "message-start":
          asm.start(event.model, event.id);
          break;
        case "text-delta":
          calls.apply(calls.parser.push(event.delta));
          break;
        case "thinking-start":
          calls.closeText();
          asm.openThinking(`thinking:${event.id}`);
          break;
        case "thinking-delta":
          asm.thinking(`thinking:${event.id}`, event.delta);
          break;
        case "thinking-end":
          asm.close(
            `thinking:${event.id}`,
            event.signature === undefined ? {} : { signature: event.signature },
          );
          break;
        case "tool-input-start":
          // A provider that called a tool natively after all: passed through.
          calls.closeText();
          asm.toolStart(`native:${event.id}`, event.toolUseId, event.name);
          break;
        case "tool-input-delta":
          asm.toolDelta(`native:${event.id}`, event.delta);
          break;
        case "tool-input-end":
          asm.close(`native:${event.id}`);
          break;
        case "block":
          calls.closeText();
          asm.block(event.block);
          break;
        case "usage":
          asm.setUsage(event.usage);
          break;
        case "retry":
        case "stream-stalled":
          yield event;
          break;
        case "message-end":
          innerEnd = event.message;
          break;
        default:
          // text-start / text-end: text blocks are the parser's to open and close.
          break;
      }
      yield* asm.drain();
    }
  } catch (cause) {
    // The inner provider broke its contract (it must not throw): end the message all the same.
    innerEnd = {
      role: "assistant",
      content: [],
      stop_reason: "error",
      incomplete: true,
      error: { type: "internal_error", message: cause instanceof Error ? cause.message : String(cause) },
    };
  }
  innerEnd ??= {
    role: "assistant",
    content: [],
    stop_reason: "error",
    incomplete: true,
    error: { type: "internal_error", message: "the provider's stream ended without message-end" },
  };
  const innerStop: StopReason = innerEnd.stop_reason ?? "end_turn";
  calls.apply(calls.parser.finish(), innerStop === "max_tokens" || innerEnd.incomplete === true);
  const message = asm.finish(termination(innerEnd, innerStop, asm.toolUses));
  restoreInnerBlocks(message, innerEnd);
  yield* asm.drain();
  yield { type: "message-end", message };
}

/** The parsed calls and text segments, as assembler blocks. */
class XmlCalls {
  readonly parser = new XmlToolCallParser();
  private textKey: string | undefined;
  private callKey: string | undefined;
  private callTag = "";
  private callBody = "";
  private callError: string | undefined;
  private blocks = 0;
  /** Right after a call: leading whitespace of the next text is dropped. */
  private afterCall = false;

  constructor(
    private readonly asm: MessageAssembler,
    private readonly newId: () => string,
  ) {}

  closeText(): void {
    if (this.textKey !== undefined) this.asm.close(this.textKey);
    this.textKey = undefined;
  }

  /** `cut`: the text ended because the model was cut off, so an unfinished call is incomplete, not invalid. */
  apply(tokens: ToolCallToken[], cut = false): void {
    for (const token of tokens) {
      if (token.type === "text") this.text(token.text);
      else if (token.type === "call-start") {
        this.closeText();
        this.callKey = `call:${this.blocks++}`;
        this.callTag = token.tag;
        this.callBody = "";
        this.callError = token.error;
        this.asm.toolStart(this.callKey, this.newId(), token.name);
      } else if (token.type === "call-delta") {
        this.callBody += token.text;
        if (this.callKey !== undefined) this.asm.toolDelta(this.callKey, token.text);
      } else {
        this.endCall(token.error, cut);
      }
    }
  }

  private text(text: string): void {
    let rest = text;
    if (this.afterCall) {
      rest = rest.replace(/^\s+/, "");
      if (rest === "") return;
      this.afterCall = false;
    }
    if (this.textKey === undefined) this.textKey = `text:${this.blocks++}`;
    this.asm.text(this.textKey, rest);
  }

  private endCall(endError: string | undefined, cut: boolean): void {
    const key = this.callKey;
    if (key === undefined) return;
    this.callKey = undefined;
    this.afterCall = true;
    if (this.callError !== undefined) {
      // The tag itself is wrong: keep everything the model wrote for this call.
      const closing = endError === undefined ? "</tool_call>" : "";
      this.asm.close(key, { invalid: this.callError, raw: `${this.callTag}${this.callBody}${closing}` });
    } else if (endError !== undefined && !cut) {
      this.asm.close(key, { invalid: endError });
    } else {
      this.asm.close(key, { cut: endError !== undefined });
    }
  }
}

function termination(innerEnd: AssistantMessage, innerStop: StopReason, toolUses: number): Termination {
  let stopReason = innerStop;
  if (toolUses > 0 && (innerStop === "end_turn" || innerStop === "stop_sequence")) stopReason = "tool_use";
  const out: Termination = { stopReason };
  if (innerEnd.error) out.error = innerEnd.error;
  if (innerEnd.incomplete) out.incomplete = true;
  return out;
}

/**
 * Puts back what only the inner message has: its usage and meta, the inner versions of non-text blocks (thinking
 * with its meta), and the meta of its text blocks (e.g. a Gemini signature) on the first text block.
 */
function restoreInnerBlocks(message: AssistantMessage, innerEnd: AssistantMessage): void {
  if (innerEnd.usage) message.usage = innerEnd.usage;
  if (innerEnd.meta) message.meta = innerEnd.meta;
  if (message.model === undefined && innerEnd.model !== undefined) message.model = innerEnd.model;
  if (message.id === undefined && innerEnd.id !== undefined) message.id = innerEnd.id;
  const others = innerEnd.content.filter((b) => b.type !== "text" && b.type !== "tool_use");
  let k = 0;
  message.content = message.content.map((block): ContentBlock => {
    if (block.type === "text" || block.type === "tool_use") return block;
    const original = others[k++];
    return original?.type === block.type ? original : block;
  });
  let textMeta: Record<string, unknown> | undefined;
  for (const block of innerEnd.content)
    if (block.type === "text" && block.meta) textMeta = { ...textMeta, ...block.meta };
  const firstText = message.content.find((b) => b.type === "text");
  if (textMeta && firstText?.type === "text") firstText.meta = { ...firstText.meta, ...textMeta };
}
