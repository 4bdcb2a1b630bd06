import type {
  AssistantMessage,
  BlockMeta,
  ContentBlock,
  StopReason,
  ToolUseBlock,
  Usage,
} from "../../messages/index.js";
import { emptyUsage } from "../../messages/index.js";
import { JsonAccumulator } from "../../stream/json-accumulator.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { toolUseFromJson } from "./tool-use-from-json.js";
import { UniqueToolIds } from "./unique-tool-ids.js";
import { UnknownBlockDraft } from "./unknown-block-draft.js";

export interface CloseOptions {
  /** The whole input as the provider repeats it at the end; wins over the streamed text if they differ. */
  fullArguments?: string;
  /** The call stopped before its end (max_tokens): its input is `incomplete` whatever it looks like. */
  cut?: boolean;
  /** A thinking block's signature (replaces what `signature()` collected). */
  signature?: string;
  /**
   * The call is invalid whatever its input (a malformed XML tag): `input_status: "invalid"`, and this reason in
   * `meta.protocolError`, for the message back to the model.
   */
  invalid?: string;
  /** With `invalid`: the text to keep as `raw_input` (default: the input text received). */
  raw?: string;
}

/** How a message ended: the stop reason, and for failures the error and whether content was cut. */
export interface Termination {
  stopReason: StopReason;
  error?: NonNullable<AssistantMessage["error"]>;
  incomplete?: boolean;
}

/** What the assembler needs to know about the conversation and the caller. */
export interface AssemblerOptions {
  /** Decode tool-input strings as they stream (`tool-input-delta.strings`); default true. */
  live?: boolean | undefined;
  /** Tool-use ids the conversation already holds: a new call never takes one of them (see `UniqueToolIds`). */
  usedToolIds?: Iterable<string> | undefined;
}

type OpenBlock =
  | { kind: "text"; index: number; text: string; meta?: BlockMeta; citations?: unknown[] }
  | { kind: "thinking"; index: number; text: string; meta?: BlockMeta; signature?: string }
  | {
      kind: "tool";
      index: number;
      /** `index` as the event id (made once: deltas are the hot path). */
      id: string;
      toolUseId: string;
      name: string;
      acc: JsonAccumulator;
      meta?: BlockMeta;
      placeholder?: unknown;
    }
  | { kind: "unknown"; index: number; provider: string; draft: UnknownBlockDraft };

/**
 * Builds one assistant message from a provider's wire events and queues the neutral `StreamEvent`s for it.
 * Shared by the adapters so that every provider follows the same lifecycle: `message-start` once, then
 * `*-start / *-delta / *-end` per block, `usage`, and exactly one `message-end`.
 *
 * Blocks are opened under a key the decoder chooses (an OpenAI tool-call index, a Responses item id), so several
 * can be open at once and their deltas may interleave; a block's event id is its position in `content`, fixed
 * when it opens. Tool input goes through a `JsonAccumulator` per call (linear in the bytes received), and is judged
 * by one rule for every provider (`toolUseFromJson`). Tool-use ids are made unique within the conversation.
 * Text blocks collect citations, thinking blocks their signature, and blocks of an unknown type grow by their
 * deltas (`UnknownBlockDraft`) until they close as one `block` event.
 *
 * The decoder calls the methods for each wire event and yields `drain()` after each one. After `end`, every other
 * call is ignored: the message is final.
 */
export class MessageAssembler {
  private readonly content: ContentBlock[] = [];
  private readonly open = new Map<string, OpenBlock>();
  private queue: StreamEvent[] = [];
  private readonly live: boolean;
  private readonly ids: UniqueToolIds;
  private usage: Usage = emptyUsage();
  private model: string | undefined;
  private messageId: string | undefined;
  private meta: Record<string, unknown> | undefined;
  private toolCount = 0;
  private startedFlag = false;
  private endedFlag = false;

  constructor(options: AssemblerOptions = {}) {
    this.live = options.live ?? true;
    this.ids = new UniqueToolIds(options.usedToolIds);
  }

  get started(): boolean {
    return this.startedFlag;
  }

  get ended(): boolean {
    return this.endedFlag;
  }

  /** Tool calls opened so far (a finished turn with calls stops with `tool_use`). */
  get toolUses(): number {
    return this.toolCount;
  }

  /** Whether any block has been opened or added. */
  get hasContent(): boolean {
    return this.content.length > 0;
  }

  /** Queues `message-start` (once); later calls only fill in a model or id not known before. */
  start(model?: string, id?: string): void {
    if (this.endedFlag) return;
    if (model !== undefined && this.model === undefined) this.model = model;
    if (id !== undefined && this.messageId === undefined) this.messageId = id;
    if (this.startedFlag) return;
    this.startedFlag = true;
    const event: StreamEvent = { type: "message-start" };
    if (this.model !== undefined) event.model = this.model;
    if (this.messageId !== undefined) event.id = this.messageId;
    this.queue.push(event);
  }

  isOpen(key: string): boolean {
    return this.open.has(key);
  }

  /** Opens a text block under `key` (no-op if one is open there). */
  openText(key: string, meta?: BlockMeta): void {
    if (this.endedFlag || this.open.has(key)) return;
    const index = this.reserve({ type: "text", text: "" });
    this.open.set(key, meta ? { kind: "text", index, text: "", meta } : { kind: "text", index, text: "" });
    this.queue.push({ type: "text-start", id: String(index) });
  }

  /** Appends text, opening the block on the first non-empty delta. */
  text(key: string, delta: string): void {
    if (this.endedFlag || delta === "") return;
    this.openText(key);
    const block = this.open.get(key);
    if (block?.kind !== "text") return;
    block.text += delta;
    this.queue.push({ type: "text-delta", id: String(block.index), delta });
  }

  openThinking(key: string, meta?: BlockMeta): void {
    if (this.endedFlag || this.open.has(key)) return;
    const index = this.reserve({ type: "thinking", thinking: "" });
    this.open.set(
      key,
      meta ? { kind: "thinking", index, text: "", meta } : { kind: "thinking", index, text: "" },
    );
    this.queue.push({ type: "thinking-start", id: String(index) });
  }

  thinking(key: string, delta: string): void {
    if (this.endedFlag || delta === "") return;
    this.openThinking(key);
    const block = this.open.get(key);
    if (block?.kind !== "thinking") return;
    block.text += delta;
    this.queue.push({ type: "thinking-delta", id: String(block.index), delta });
  }

  /** Adds a citation to an open text block (its `meta.citations`, in order). */
  citation(key: string, citation: unknown): void {
    const block = this.open.get(key);
    if (this.endedFlag || block?.kind !== "text") return;
    if (block.citations) block.citations.push(citation);
    else block.citations = [citation];
  }

  /** Appends to an open thinking block's signature (sent in parts by some providers). */
  signature(key: string, part: string): void {
    const block = this.open.get(key);
    if (this.endedFlag || block?.kind !== "thinking" || part === "") return;
    block.signature = (block.signature ?? "") + part;
  }

  /** Merges provider data into an open block's meta (e.g. a Gemini `thoughtSignature` that arrives late). */
  mergeMeta(key: string, meta: BlockMeta): void {
    const block = this.open.get(key);
    if (!block || block.kind === "unknown") return;
    block.meta = { ...block.meta, ...meta };
  }

  /**
   * Opens a tool call: queues `tool-input-start`. `wireId` is the server's id (empty when it gave none); the call
   * keeps it unless the conversation already has it (see `UniqueToolIds`). `placeholder` is the input the call
   * starts with, used if no input text arrives.
   */
  toolStart(key: string, wireId: string, name: string, meta?: BlockMeta, placeholder?: unknown): void {
    if (this.endedFlag || this.open.has(key)) return;
    const toolUseId = this.ids.take(wireId);
    const index = this.reserve({ type: "tool_use", id: toolUseId, name, input: {} });
    const acc = new JsonAccumulator({ live: this.live });
    const block: OpenBlock = { kind: "tool", index, id: String(index), toolUseId, name, acc };
    if (meta) block.meta = meta;
    if (placeholder !== undefined) block.placeholder = placeholder;
    this.open.set(key, block);
    this.toolCount++;
    this.queue.push({ type: "tool-input-start", id: String(index), toolUseId, name });
  }

  /**
   * Opens a block of a type this version does not know, from its start data; `unknownDelta` grows it and `close`
   * queues it as one `block` event (an `UnknownBlock` of `provider`).
   */
  openUnknown(key: string, provider: string, start: Record<string, unknown>): void {
    if (this.endedFlag || this.open.has(key)) return;
    const index = this.reserve({ type: "unknown", provider, data: start });
    this.open.set(key, { kind: "unknown", index, provider, draft: new UnknownBlockDraft(start) });
  }

  /** Merges a delta into an open unknown block (see `UnknownBlockDraft.apply`). */
  unknownDelta(key: string, delta: Record<string, unknown>): void {
    const block = this.open.get(key);
    if (this.endedFlag || block?.kind !== "unknown") return;
    block.draft.apply(delta);
  }

  /** Feeds a raw JSON fragment of the call's input. Returns whether a tool call is open under `key`. */
  toolDelta(key: string, fragment: string): boolean {
    const block = this.open.get(key);
    if (this.endedFlag || block?.kind !== "tool") return false;
    if (fragment === "") return true;
    const strings = block.acc.push(fragment);
    this.queue.push({ type: "tool-input-delta", id: block.id, delta: fragment, strings });
    return true;
  }

  /** Closes whatever block is open under `key` (see `CloseOptions`); queues its `*-end` event. */
  close(key: string, options: CloseOptions = {}): void {
    const block = this.open.get(key);
    if (this.endedFlag || !block) return;
    this.open.delete(key);
    const id = String(block.index);
    if (block.kind === "text") {
      const done: ContentBlock = { type: "text", text: block.text };
      if (block.meta || block.citations) {
        done.meta = block.citations ? { ...block.meta, citations: block.citations } : { ...block.meta };
      }
      this.content[block.index] = done;
      this.queue.push({ type: "text-end", id, text: block.text });
    } else if (block.kind === "thinking") {
      const signature = options.signature ?? block.signature;
      const done: ContentBlock = { type: "thinking", thinking: block.text };
      if (signature) done.signature = signature;
      if (block.meta) done.meta = block.meta;
      this.content[block.index] = done;
      const event: StreamEvent = { type: "thinking-end", id, thinking: block.text };
      if (signature) event.signature = signature;
      this.queue.push(event);
    } else if (block.kind === "unknown") {
      const done: ContentBlock = { type: "unknown", provider: block.provider, data: block.draft.finish() };
      this.content[block.index] = done;
      this.queue.push({ type: "block", id, block: done });
    } else if (options.invalid !== undefined) {
      const done: ToolUseBlock = {
        type: "tool_use",
        id: block.toolUseId,
        name: block.name,
        input: {},
        raw_input: options.raw ?? block.acc.text,
        input_status: "invalid",
        meta: { ...block.meta, protocolError: options.invalid },
      };
      this.content[block.index] = done;
      this.queue.push({ type: "tool-input-end", id, block: done });
    } else {
      let result = block.acc.finish();
      if (options.fullArguments !== undefined && options.fullArguments !== block.acc.text) {
        const check = new JsonAccumulator({ live: false });
        check.push(options.fullArguments);
        result = check.finish();
      }
      const done = toolUseFromJson({
        id: block.toolUseId,
        name: block.name,
        result,
        cut: options.cut === true,
        meta: block.meta,
        placeholder: block.placeholder,
      });
      this.content[block.index] = done;
      this.queue.push({ type: "tool-input-end", id, block: done });
    }
  }

  /** Closes every open block of the given kinds (all when omitted), in content order. */
  closeAll(kinds?: ReadonlyArray<OpenBlock["kind"]>, options: { cut?: boolean } = {}): void {
    const keys = [...this.open.entries()]
      .filter(([, b]) => kinds === undefined || kinds.includes(b.kind))
      .sort((a, b) => a[1].index - b[1].index)
      .map(([k]) => k);
    for (const key of keys) this.close(key, options);
  }

  /** A block that arrives whole (an image, redacted thinking, a provider block mitsu does not know). */
  block(block: ContentBlock): void {
    if (this.endedFlag) return;
    let whole = block;
    if (whole.type === "tool_use") {
      this.toolCount++;
      const id = this.ids.take(whole.id);
      if (id !== whole.id) whole = { ...whole, id };
    }
    const index = this.reserve(whole);
    this.queue.push({ type: "block", id: String(index), block: whole });
  }

  /** Sets the message's usage (providers report cumulative totals: the last report wins) and queues `usage`. */
  setUsage(usage: Usage): void {
    if (this.endedFlag) return;
    this.usage = usage;
    this.queue.push({ type: "usage", usage });
  }

  /** Provider-only data for the whole message (`AssistantMessage.meta`). */
  setMeta(key: string, value: unknown): void {
    this.meta = { ...this.meta, [key]: value };
  }

  /**
   * Finishes the message and returns it (without queueing `message-end`, which the caller sends): closes open
   * blocks and sets the stop reason, usage, error and meta. A tool call still open when the message failed, was
   * aborted or hit max_tokens was cut: its input is `incomplete`, kept as received. When the provider said the
   * message ended normally, a call it forgot to close is judged by its input as usual.
   */
  finish(termination: Termination): AssistantMessage {
    const stop = termination.stopReason;
    const cut =
      termination.incomplete === true || stop === "error" || stop === "aborted" || stop === "max_tokens";
    this.closeAll(undefined, { cut });
    this.endedFlag = true;
    const message: AssistantMessage = {
      role: "assistant",
      content: this.content,
      stop_reason: termination.stopReason,
      // Zeros when the provider never reported usage: every message-end carries it.
      usage: this.usage,
    };
    if (this.model !== undefined) message.model = this.model;
    if (this.messageId !== undefined) message.id = this.messageId;
    if (termination.incomplete) message.incomplete = true;
    if (termination.error) message.error = termination.error;
    if (this.meta) message.meta = this.meta;
    return message;
  }

  /** `finish`, then queues the `message-end` itself (for a stream that is not run by `streamWithRetries`). */
  end(termination: Termination): void {
    if (this.endedFlag) return;
    this.start();
    const message = this.finish(termination);
    this.queue.push({ type: "message-end", message });
  }

  /** Whether events are queued. */
  get pending(): boolean {
    return this.queue.length > 0;
  }

  /** The events queued since the last call. */
  drain(): StreamEvent[] {
    const events = this.queue;
    this.queue = [];
    return events;
  }

  private reserve(placeholder: ContentBlock): number {
    this.content.push(placeholder);
    return this.content.length - 1;
  }
}
