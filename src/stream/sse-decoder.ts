import { createParser } from "eventsource-parser";

/** One server-sent event. `event` is the `event:` field, undefined when the server sent none. */
export interface SseEvent {
  event: string | undefined;
  data: string;
  id?: string;
}

export interface DecodeSseOptions {
  /** On abort the body is cancelled and the generator throws the signal's reason. */
  signal?: AbortSignal;
  /** Called after each read of the body that brought bytes (an idle watch counts silence from it). Must not throw. */
  onRead?: () => void;
}

/** The two operations the decoder needs from a body, whatever its kind. */
interface ByteSource {
  read(): Promise<IteratorResult<Uint8Array, unknown>>;
  /** Stops the body early (abort, or the consumer stopped iterating). Never rejects. */
  cancel(reason: unknown): void;
  /** Lets go of the body after it ended normally. */
  release(): void;
  /** Whether `cancel` settles a pending `read` (a web stream's reader does; an async iterator's `return` waits). */
  cancelEndsRead: boolean;
}

/**
 * Decodes a byte stream into SSE events (eventsource-parser 3) through a streaming TextDecoder, so a multi-byte
 * UTF-8 character split across reads decodes intact. Lines may end in \n, \r\n or \r; comments are skipped.
 * An event left without its blank line at the end of the body is still delivered (some servers end that way).
 *
 * Honours `options.signal`: on abort, the body is cancelled and the generator throws `signal.reason` (events
 * already decoded but not yet taken are dropped). When the consumer stops early (`break`, `return()`), the body
 * is cancelled too. Errors of the body itself propagate as thrown.
 *
 * One event per step costs a promise per event; a hot path can take `decodeSseBatches` instead.
 */
export function decodeSse(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: DecodeSseOptions = {},
): AsyncGenerator<SseEvent> {
  return new SseEventIterator(decodeSseBatches(body, options), options.signal);
}

/**
 * `decodeSse`, one array per read of the body: the events that read completed (never an empty array). The same
 * framing, flush, abort and cancellation rules; about half the per-event cost for a consumer that loops over
 * each batch itself.
 */
export async function* decodeSseBatches(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: DecodeSseOptions = {},
): AsyncGenerator<SseEvent[]> {
  const { signal, onRead } = options;
  signal?.throwIfAborted();
  let events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      events.push(
        e.id === undefined ? { event: e.event, data: e.data } : { event: e.event, data: e.data, id: e.id },
      );
    },
  });
  const decoder = new TextDecoder();
  const source = openSource(body);
  let ended = false;
  // A web stream's pending read settles (done) when its reader is cancelled: one listener for the whole body
  // does what a listener per read would, at no cost per read. Other iterables are raced read by read.
  const onAbort = () => source.cancel(signal?.reason);
  if (source.cancelEndsRead) signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const result = source.cancelEndsRead ? await source.read() : await abortable(source.read(), signal);
      signal?.throwIfAborted();
      if (result.done) break;
      onRead?.();
      const text = decoder.decode(result.value, { stream: true });
      if (text.length > 0) parser.feed(text);
      if (events.length > 0) {
        signal?.throwIfAborted();
        const batch = events;
        events = [];
        yield batch;
      }
    }
    ended = true;
    // The decoder's remainder, then a blank line: ends a last line and dispatches a last event that lacked its own
    // blank line. After a properly ended stream the extra blank lines dispatch nothing.
    parser.feed(`${decoder.decode()}\n\n`);
    if (events.length > 0) {
      signal?.throwIfAborted();
      yield events;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (ended) source.release();
    else source.cancel(signal?.aborted ? signal.reason : undefined);
  }
}

/**
 * Hands out the events of each batch one at a time with an already-settled promise, which costs far less than an
 * async generator's `yield` per event. Calls are serialised as an async generator's are.
 */
class SseEventIterator implements AsyncGenerator<SseEvent, undefined, unknown> {
  private batch: SseEvent[] = [];
  private head = 0;
  /** The last step queued (a read of the body, a stop); later calls run after it, as an async generator's do. */
  private tail: Promise<unknown> | undefined;

  constructor(
    private readonly batches: AsyncGenerator<SseEvent[]>,
    private readonly signal: AbortSignal | undefined,
  ) {}

  next(): Promise<IteratorResult<SseEvent, undefined>> {
    // The fast path: nothing in flight and an event at hand.
    if (this.tail === undefined && this.head < this.batch.length && this.signal?.aborted !== true) {
      return Promise.resolve({ done: false, value: this.batch[this.head++]! });
    }
    return this.queue(() => this.nextNow());
  }

  return(): Promise<IteratorResult<SseEvent, undefined>> {
    return this.queue(() => this.stop().then(() => ({ done: true, value: undefined })));
  }

  throw(error: unknown): Promise<IteratorResult<SseEvent, undefined>> {
    return this.queue(() => this.stop().then(() => Promise.reject(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private async nextNow(): Promise<IteratorResult<SseEvent, undefined>> {
    if (this.signal?.aborted === true && this.head < this.batch.length) {
      const reason: unknown = this.signal.reason;
      await this.stop();
      throw reason;
    }
    if (this.head < this.batch.length) return { done: false, value: this.batch[this.head++]! };
    const result = await this.batches.next();
    if (result.done === true) return { done: true, value: undefined };
    this.batch = result.value;
    this.head = 1;
    return { done: false, value: result.value[0]! };
  }

  /** Drops what is left and ends the batches generator, whose `finally` cancels the body. */
  private async stop(): Promise<void> {
    this.batch = [];
    this.head = 0;
    await this.batches.return(undefined);
  }

  private queue<T>(operation: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    const step = previous === undefined ? operation() : previous.then(operation, operation);
    this.tail = step;
    const clear = () => {
      if (this.tail === step) this.tail = undefined;
    };
    step.then(clear, clear);
    return step;
  }
}

function openSource(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): ByteSource {
  if (isReadableStream(body)) {
    const reader = body.getReader();
    return {
      read: () => reader.read() as Promise<IteratorResult<Uint8Array, unknown>>,
      cancel: (reason) => {
        reader.cancel(reason).catch(() => {});
      },
      release: () => reader.releaseLock(),
      cancelEndsRead: true,
    };
  }
  const iterator = body[Symbol.asyncIterator]();
  return {
    read: () => iterator.next(),
    cancel: () => {
      // An async generator queues return() behind a pending next(); do not wait for it.
      iterator.return?.()?.catch(() => {});
    },
    release: () => {},
    cancelEndsRead: false,
  };
}

function isReadableStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream<Uint8Array>).getReader === "function";
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The read already started: its rejection (fetch errors the body with the same abort) must not go unhandled,
    // which would crash a Node process that runs with the default --unhandled-rejections=throw.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
