import type {
  ContentBlock,
  TextBlock,
  ThinkingBlock,
  ToolUseBlock,
  UnknownBlock,
} from "../../messages/index.js";
import { JsonAccumulator } from "../../stream/json-accumulator.js";
import type { StreamEvent } from "../../stream/stream-event.js";

/**
 * One content block being assembled from `content_block_start` / `_delta` / `_stop`. Text is kept as an array
 * of parts and joined once when the block closes, tool input goes through a `JsonAccumulator`: the cost of a
 * block is linear in its bytes whatever the fragment size.
 */
export type BlockSlot = TextSlot | ThinkingSlot | ToolSlot | WholeSlot | UnknownSlot;

interface SlotBase {
  /** The block's position in the message's content, as the event id. */
  id: string;
  /** Set once the block is finished (closed, or closed by the end of the stream). */
  done?: ContentBlock;
}

interface TextSlot extends SlotBase {
  kind: "text";
  parts: string[];
  citations?: unknown[];
}

interface ThinkingSlot extends SlotBase {
  kind: "thinking";
  parts: string[];
  signature: string[];
}

interface ToolSlot extends SlotBase {
  kind: "tool";
  toolUseId: string;
  name: string;
  startInput: unknown;
  input: JsonAccumulator;
}

/** Blocks that arrive whole in `content_block_start`: redacted thinking. */
interface WholeSlot extends SlotBase {
  kind: "whole";
  block: ContentBlock;
}

/** A block type this version does not know, kept verbatim with its deltas merged in. */
interface UnknownSlot extends SlotBase {
  kind: "unknown";
  data: Record<string, unknown>;
  /** String fields grown by deltas (e.g. `compaction_delta.content`), joined at the end. */
  strings: Map<string, string[]>;
  /** `input_json_delta` fragments (server_tool_use), parsed into `input` at the end. */
  input?: JsonAccumulator;
}

/** Opens a slot for a `content_block_start` and returns the events it yields. */
export function openSlot(
  id: string,
  start: Record<string, unknown>,
  live: boolean,
): { slot: BlockSlot; events: StreamEvent[] } {
  switch (start.type) {
    case "text": {
      const slot: TextSlot = { kind: "text", id, parts: initialText(start.text) };
      return { slot, events: [{ type: "text-start", id }] };
    }
    case "thinking": {
      const slot: ThinkingSlot = {
        kind: "thinking",
        id,
        parts: initialText(start.thinking),
        signature: initialText(start.signature),
      };
      return { slot, events: [{ type: "thinking-start", id }] };
    }
    case "tool_use": {
      const slot: ToolSlot = {
        kind: "tool",
        id,
        toolUseId: typeof start.id === "string" ? start.id : "",
        name: typeof start.name === "string" ? start.name : "",
        startInput: start.input,
        input: new JsonAccumulator({ live }),
      };
      return {
        slot,
        events: [{ type: "tool-input-start", id, toolUseId: slot.toolUseId, name: slot.name }],
      };
    }
    case "redacted_thinking": {
      const block: ContentBlock = {
        type: "redacted_thinking",
        data: typeof start.data === "string" ? start.data : "",
      };
      const slot: WholeSlot = { kind: "whole", id, block, done: block };
      return { slot, events: [{ type: "block", id, block }] };
    }
    default: {
      const slot: UnknownSlot = { kind: "unknown", id, data: { ...start }, strings: new Map() };
      return { slot, events: [] };
    }
  }
}

/** Applies a `content_block_delta`. Unknown delta types are merged into unknown blocks and ignored elsewhere. */
export function applyDelta(slot: BlockSlot, delta: Record<string, unknown>): StreamEvent[] {
  if (slot.done) return [];
  const type = delta.type;
  switch (slot.kind) {
    case "text":
      if (type === "text_delta" && typeof delta.text === "string") {
        if (delta.text === "") return [];
        slot.parts.push(delta.text);
        return [{ type: "text-delta", id: slot.id, delta: delta.text }];
      }
      if (type === "citations_delta" && delta.citation !== undefined) {
        if (!slot.citations) slot.citations = [];
        slot.citations.push(delta.citation);
      }
      return [];
    case "thinking":
      if (type === "thinking_delta" && typeof delta.thinking === "string") {
        if (delta.thinking === "") return [];
        slot.parts.push(delta.thinking);
        return [{ type: "thinking-delta", id: slot.id, delta: delta.thinking }];
      }
      if (type === "signature_delta" && typeof delta.signature === "string") {
        slot.signature.push(delta.signature);
      }
      return [];
    case "tool":
      if (type === "input_json_delta" && typeof delta.partial_json === "string") {
        const strings = slot.input.push(delta.partial_json);
        return [{ type: "tool-input-delta", id: slot.id, delta: delta.partial_json, strings }];
      }
      return [];
    case "whole":
      return [];
    case "unknown":
      mergeUnknownDelta(slot, delta);
      return [];
  }
}

/**
 * Finishes a slot and returns its closing events. `cut` means the stream ended before `content_block_stop`:
 * a tool_use is then `incomplete` whatever its text looks like, since the model had not finished it.
 */
export function closeSlot(slot: BlockSlot, cut: boolean): StreamEvent[] {
  if (slot.done) return [];
  switch (slot.kind) {
    case "text": {
      const text = slot.parts.join("");
      const block: TextBlock = { type: "text", text };
      if (slot.citations) block.meta = { citations: slot.citations };
      slot.done = block;
      return [{ type: "text-end", id: slot.id, text }];
    }
    case "thinking": {
      const thinking = slot.parts.join("");
      const signature = slot.signature.join("");
      const block: ThinkingBlock = { type: "thinking", thinking };
      if (signature) block.signature = signature;
      slot.done = block;
      return [
        signature
          ? { type: "thinking-end", id: slot.id, thinking, signature }
          : { type: "thinking-end", id: slot.id, thinking },
      ];
    }
    case "tool": {
      const block = finishToolInput(slot, cut);
      slot.done = block;
      return [{ type: "tool-input-end", id: slot.id, block }];
    }
    case "whole":
      return [];
    case "unknown": {
      const block: UnknownBlock = { type: "unknown", provider: "anthropic", data: finishUnknown(slot) };
      slot.done = block;
      return [{ type: "block", id: slot.id, block }];
    }
  }
}

function finishToolInput(slot: ToolSlot, cut: boolean): ToolUseBlock {
  const block: ToolUseBlock = { type: "tool_use", id: slot.toolUseId, name: slot.name, input: {} };
  const raw = slot.input.text;
  if (!cut && raw.trim() === "") {
    // No fragments (or only ""): a tool called without arguments. The start placeholder is `{}`.
    if (isPlainObject(slot.startInput)) block.input = slot.startInput;
    return block;
  }
  const result = slot.input.finish();
  if (!cut && result.status === "ok" && isPlainObject(result.value)) {
    block.input = result.value;
    return block;
  }
  block.raw_input = raw;
  // Valid JSON that is not an object (`[1]`, `"x"`) is no tool input either.
  block.input_status = cut || result.status === "incomplete" ? "incomplete" : "invalid";
  return block;
}

function mergeUnknownDelta(slot: UnknownSlot, delta: Record<string, unknown>): void {
  if (delta.type === "input_json_delta") {
    if (typeof delta.partial_json === "string") {
      if (!slot.input) slot.input = new JsonAccumulator({ live: false });
      slot.input.push(delta.partial_json);
    }
    return;
  }
  // Generic rule for delta types we do not know: strings grow the field of the same name, other values replace it.
  for (const [key, value] of Object.entries(delta)) {
    if (key === "type") continue;
    const current = slot.data[key];
    if (
      typeof value === "string" &&
      (current === undefined || current === null || typeof current === "string")
    ) {
      let parts = slot.strings.get(key);
      if (!parts) {
        parts = typeof current === "string" ? [current] : [];
        slot.strings.set(key, parts);
      }
      parts.push(value);
    } else {
      slot.strings.delete(key);
      slot.data[key] = value;
    }
  }
}

function finishUnknown(slot: UnknownSlot): Record<string, unknown> {
  const data = slot.data;
  for (const [key, parts] of slot.strings) data[key] = parts.join("");
  if (slot.input && slot.input.text.trim() !== "") {
    const result = slot.input.finish();
    // Only a whole object replaces the start placeholder; the block is sent back as is, so it must stay valid.
    if (result.status === "ok" && isPlainObject(result.value)) data.input = result.value;
  }
  return data;
}

function initialText(value: unknown): string[] {
  return typeof value === "string" && value !== "" ? [value] : [];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
