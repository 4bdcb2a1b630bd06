/**
 * A scripted fake Provider for the loop's tests (not part of the public API): each model call replays the
 * next script of StreamEvents. Scripts may pause on a promise, so a test can abort mid-stream; an aborted
 * stream ends, as the Provider contract says, with `message-end` / `stop_reason: "aborted"` carrying what
 * had arrived.
 */
import type { AssistantMessage, ContentBlock, StopReason, ToolUseBlock, Usage } from "../messages/index.js";
import type { CallOptions, EncodedRequest, ModelRequest, Provider } from "../providers/provider.js";
import type { StreamEvent } from "../stream/stream-event.js";

/** A step of a script: an event to yield, or a pause until the promise settles (or the call is aborted). */
export type ScriptStep = StreamEvent | { pause: Promise<unknown> };
/** One model call's script, or a function that builds it from the request (and can check the request). */
export type Script = readonly ScriptStep[] | ((request: ModelRequest, call: number) => readonly ScriptStep[]);

export const TEST_USAGE: Usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 1,
  cache_read_input_tokens: 2,
};

export class TestProvider implements Provider {
  readonly api = "test";
  /** A deep copy of every request, taken when it was sent, in order. */
  readonly requests: ModelRequest[] = [];
  readonly callOptions: CallOptions[] = [];
  readonly #scripts: Script[];

  constructor(scripts: Script[]) {
    this.#scripts = scripts;
  }

  encode(request: ModelRequest): EncodedRequest {
    return { url: "test://model", method: "POST", headers: {}, body: request };
  }

  async *stream(request: ModelRequest, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const call = this.requests.length;
    this.requests.push(structuredClone(request));
    this.callOptions.push(options);
    const script = this.#scripts[call];
    if (script === undefined) {
      yield endEvent({ content: [], stop: "error", error: `test script has no call ${call + 1}` });
      return;
    }
    const steps = typeof script === "function" ? script(request, call) : script;
    const partial = new PartialContent();
    for (const step of steps) {
      if ("pause" in step) await untilAborted(step.pause, options.signal);
      if (options.signal?.aborted) {
        yield endEvent({ content: partial.content(), stop: "aborted", incomplete: true });
        return;
      }
      if ("pause" in step) continue;
      partial.add(step);
      yield step;
    }
  }
}

function untilAborted(pause: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal)
    return pause.then(
      () => {},
      () => {},
    );
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    pause.then(done, done);
  });
}

/** Rebuilds the blocks seen so far, as a decoder would hand them over when cut. */
class PartialContent {
  readonly #blocks = new Map<string, ContentBlock>();

  add(event: StreamEvent): void {
    switch (event.type) {
      case "text-start":
        this.#blocks.set(event.id, { type: "text", text: "" });
        break;
      case "thinking-start":
        this.#blocks.set(event.id, { type: "thinking", thinking: "" });
        break;
      case "thinking-delta": {
        const block = this.#blocks.get(event.id);
        if (block?.type === "thinking") block.thinking += event.delta;
        break;
      }
      case "text-delta": {
        const block = this.#blocks.get(event.id);
        if (block?.type === "text") block.text += event.delta;
        break;
      }
      case "tool-input-start":
        this.#blocks.set(event.id, {
          type: "tool_use",
          id: event.toolUseId,
          name: event.name,
          input: {},
          raw_input: "",
          input_status: "incomplete",
        });
        break;
      case "tool-input-delta": {
        const block = this.#blocks.get(event.id);
        if (block?.type === "tool_use") block.raw_input = (block.raw_input ?? "") + event.delta;
        break;
      }
      case "text-end":
        this.#blocks.set(event.id, { type: "text", text: event.text });
        break;
      case "thinking-end":
        this.#blocks.set(
          event.id,
          event.signature === undefined
            ? { type: "thinking", thinking: event.thinking }
            : { type: "thinking", thinking: event.thinking, signature: event.signature },
        );
        break;
      case "tool-input-end":
      case "block":
        this.#blocks.set(event.id, event.block);
        break;
      default:
        break;
    }
  }

  content(): ContentBlock[] {
    return [...this.#blocks.entries()].sort(([a], [b]) => Number(a) - Number(b)).map(([, block]) => block);
  }
}

export interface EndOptions {
  content: ContentBlock[];
  stop: StopReason;
  usage?: Usage;
  incomplete?: boolean;
  error?: string;
}

export function endEvent(options: EndOptions): StreamEvent {
  const message: AssistantMessage = {
    role: "assistant",
    content: options.content,
    stop_reason: options.stop,
    usage: options.usage ?? TEST_USAGE,
    model: "test-model",
  };
  if (options.incomplete) message.incomplete = true;
  if (options.error !== undefined) message.error = { type: "api_error", message: options.error };
  return { type: "message-end", message };
}

/** The events of a whole message with these blocks: start/delta/end per block, then `message-end`. */
export function messageEvents(
  content: ContentBlock[],
  stop: StopReason,
  options: { usage?: Usage } = {},
): StreamEvent[] {
  const events: StreamEvent[] = [{ type: "message-start", model: "test-model" }];
  content.forEach((block, i) => {
    const id = String(i);
    if (block.type === "text") {
      const half = Math.ceil(block.text.length / 2);
      events.push({ type: "text-start", id });
      events.push({ type: "text-delta", id, delta: block.text.slice(0, half) });
      events.push({ type: "text-delta", id, delta: block.text.slice(half) });
      events.push({ type: "text-end", id, text: block.text });
    } else if (block.type === "tool_use") {
      const raw = block.raw_input ?? JSON.stringify(block.input);
      events.push({ type: "tool-input-start", id, toolUseId: block.id, name: block.name });
      events.push({ type: "tool-input-delta", id, delta: raw, strings: [] });
      // A cut tool call never gets its end event (the stream stopped inside it).
      if (block.input_status !== "incomplete") events.push({ type: "tool-input-end", id, block });
    } else {
      events.push({ type: "block", id, block });
    }
  });
  events.push(endEvent({ content, stop, ...(options.usage ? { usage: options.usage } : {}) }));
  return events;
}

export function textTurn(text: string, stop: StopReason = "end_turn", usage?: Usage): StreamEvent[] {
  return messageEvents([{ type: "text", text }], stop, usage ? { usage } : {});
}

export function toolUse(id: string, name: string, input: Record<string, unknown> = {}): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

/** A message of tool calls (optionally after a text block), stopped with `tool_use`. */
export function toolTurn(calls: ToolUseBlock[], text?: string): StreamEvent[] {
  const content: ContentBlock[] = text === undefined ? [...calls] : [{ type: "text", text }, ...calls];
  return messageEvents(content, "tool_use");
}

export function errorTurn(message: string, partialText?: string): StreamEvent[] {
  const events: StreamEvent[] = [{ type: "message-start" }];
  const content: ContentBlock[] = [];
  if (partialText !== undefined) {
    events.push({ type: "text-start", id: "0" }, { type: "text-delta", id: "0", delta: partialText });
    content.push({ type: "text", text: partialText });
  }
  events.push(endEvent({ content, stop: "error", incomplete: true, error: message }));
  return events;
}
