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
}

/** The two operations the decoder needs from a body, whatever its kind. */
interface ByteSource {
  read(): Promise<IteratorResult<Uint8Array, unknown>>;
  /** Stops the body early (abort, or the consumer stopped iterating). Never rejects. */
  cancel(reason: unknown): void;
  /** Lets go of the body after it ended normally. */
  release(): void;
}

/**
 * Decodes a byte stream into SSE events (eventsource-parser 3) through a streaming TextDecoder, so a multi-byte
 * UTF-8 character split across reads decodes intact. Lines may end in \n, \r\n or \r; comments are skipped.
 * An event left without its blank line at the end of the body is still delivered (some servers end that way).
 *
 * Honours `options.signal`: on abort, the body is cancelled and the generator throws `signal.reason`. When the
 * consumer stops iterating early, the body is cancelled too. Errors of the body itself propagate as thrown.
 */
export async function* decodeSse(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: DecodeSseOptions = {},
): AsyncGenerator<SseEvent> {
  const { signal } = options;
  signal?.throwIfAborted();
  const events: SseEvent[] = [];
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
  try {
    for (;;) {
      const result = await abortable(source.read(), signal);
      if (result.done) break;
      const text = decoder.decode(result.value, { stream: true });
      if (text.length > 0) parser.feed(text);
      for (let i = 0; i < events.length; i++) {
        signal?.throwIfAborted();
        yield events[i]!;
      }
      events.length = 0;
    }
    ended = true;
    // The decoder's remainder, then a blank line: ends a last line and dispatches a last event that lacked its own
    // blank line. After a properly ended stream the extra blank lines dispatch nothing.
    parser.feed(`${decoder.decode()}\n\n`);
    for (const event of events) {
      signal?.throwIfAborted();
      yield event;
    }
  } finally {
    if (ended) source.release();
    else source.cancel(signal?.aborted ? signal.reason : undefined);
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
  };
}

function isReadableStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream<Uint8Array>).getReader === "function";
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
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
