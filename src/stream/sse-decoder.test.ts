import { readdirSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { chunkedResponse, splitBytes, WIRE_DIR, wireBody } from "../../test/fixtures.js";
import { decodeSse, decodeSseBatches, type SseEvent } from "./sse-decoder.js";

const encoder = new TextEncoder();

async function collect(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of decodeSse(body)) events.push(event);
  return events;
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return chunkedResponse(chunks).body!;
}

async function* iterableOf(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

const fixtures = readdirSync(WIRE_DIR).filter((name) => name.endsWith(".sse") || name.endsWith(".json"));

describe("decodeSse on the recorded wire fixtures", () => {
  test("there are fixtures of every provider", () => {
    for (const prefix of ["anthropic-", "openai-chat-", "openai-responses-", "gemini-"]) {
      expect(fixtures.some((name) => name.startsWith(prefix))).toBe(true);
    }
  });

  test.each(fixtures)("%s decodes the same under any byte split", async (name) => {
    const bytes = wireBody(name);
    const whole = await collect(streamOf([bytes]));
    // Every fixture has one data line per event.
    const dataLines = new TextDecoder().decode(bytes).match(/^data:/gm)?.length;
    expect(whole).toHaveLength(dataLines!);
    for (let seed = 1; seed <= 12; seed++) {
      expect(await collect(streamOf(splitBytes(bytes, seed, seed % 2 === 0 ? 3 : 17)))).toEqual(whole);
    }
    expect(await collect(iterableOf(splitBytes(bytes, 99, 5)))).toEqual(whole);
    expect(await collect(streamOf(splitBytes(bytes, 7, 1)))).toEqual(whole);
    const batches: SseEvent[][] = [];
    for await (const batch of decodeSseBatches(streamOf(splitBytes(bytes, 5, 64)))) batches.push(batch);
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
    expect(batches.flat()).toEqual(whole);
  });

  test("Anthropic events carry their names and JSON data", async () => {
    const events = await collect(streamOf([wireBody("anthropic-tool-use-basic.sse")]));
    expect(events[0]?.event).toBe("message_start");
    for (const event of events) expect((JSON.parse(event.data) as { type: string }).type).toBe(event.event);
  });

  test("a last event without its blank line is still delivered", async () => {
    const bytes = wireBody("anthropic-tool-use-invalid-json.sse");
    expect(new TextDecoder().decode(bytes).endsWith("\n\n")).toBe(false);
    const events = await collect(streamOf(splitBytes(bytes, 3, 9)));
    expect(events.at(-1)).toEqual({ event: "message_stop", data: '{"type":"message_stop"}' });
  });

  test("CRLF-framed Gemini events have no name and whole JSON data", async () => {
    const events = await collect(streamOf(splitBytes(wireBody("gemini-text.sse"), 5, 2)));
    expect(events).toHaveLength(2);
    for (const event of events) {
      expect(event.event).toBeUndefined();
      expect(() => JSON.parse(event.data)).not.toThrow();
    }
    const text = events.map(
      (e) =>
        (JSON.parse(e.data) as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]!
          .content.parts[0]!.text,
    );
    expect(text.join("")).toBe("The temperature in Paris is 30°C.\n");
  });

  test("OpenAI's [DONE] comes through as data", async () => {
    const events = await collect(streamOf(splitBytes(wireBody("openai-chat-text-basic.sse"), 11)));
    expect(events.at(-1)).toEqual({ event: undefined, data: "[DONE]" });
  });
});

describe("decodeSse framing", () => {
  test("multi-byte UTF-8 split at every byte decodes intact", async () => {
    const text = "data: 😀 日本語のテキスト é\n\nevent: x\ndata: 🎉\n\n";
    const bytes = encoder.encode(text);
    const expected = [
      { event: undefined, data: "😀 日本語のテキスト é" },
      { event: "x", data: "🎉" },
    ];
    for (let k = 0; k <= bytes.length; k++) {
      expect(await collect(streamOf([bytes.subarray(0, k), bytes.subarray(k)]))).toEqual(expected);
    }
    expect(await collect(streamOf(splitBytes(bytes, 1, 1)))).toEqual(expected);
  });

  test("\\n, \\r\\n and \\r line ends; comments; multi-line data; ids", async () => {
    const text =
      ": a comment\r\nevent: a\rdata: one\rdata: two\r\rid: 7\ndata: three\n\n: ping\n\ndata:four\r\n\r\n";
    const expected = [
      { event: "a", data: "one\ntwo" },
      { event: undefined, data: "three", id: "7" },
      { event: undefined, data: "four" },
    ];
    const bytes = encoder.encode(text);
    expect(await collect(streamOf([bytes]))).toEqual(expected);
    for (let k = 0; k <= bytes.length; k++) {
      expect(await collect(streamOf([bytes.subarray(0, k), bytes.subarray(k)]))).toEqual(expected);
    }
  });

  test.each([
    ["data: x", "no line end"],
    ["data: x\n", "\\n"],
    ["data: x\r", "\\r"],
    ["data: x\r\n", "\\r\\n"],
  ])("a final event ending in %j (%s) is flushed at the end", async (tail) => {
    const events = await collect(streamOf([encoder.encode(`data: a\n\n${tail}`)]));
    expect(events).toEqual([
      { event: undefined, data: "a" },
      { event: undefined, data: "x" },
    ]);
  });

  test("an empty body yields no events; a half-sent field line yields none either", async () => {
    expect(await collect(streamOf([]))).toEqual([]);
    expect(await collect(streamOf([encoder.encode("event: only-a-name\n")]))).toEqual([]);
  });

  test("an error of the body propagates", async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield encoder.encode("data: a\n\n");
      throw new Error("socket hang up");
    }
    const seen: string[] = [];
    await expect(async () => {
      for await (const event of decodeSse(failing())) seen.push(event.data);
    }).rejects.toThrow("socket hang up");
    expect(seen).toEqual(["a"]);
  });
});

describe("decodeSse as an async generator", () => {
  test("calls made at once are answered in order, then done", async () => {
    const body = streamOf(splitBytes(encoder.encode("data: 1\n\ndata: 2\n\ndata: 3\n\n"), 2, 4));
    const events = decodeSse(body);
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => events.next()));
    expect(results.map((r) => (r.done === true ? "done" : r.value.data))).toEqual([
      "1",
      "2",
      "3",
      "done",
      "done",
    ]);
  });

  test("return() ends it and cancels the body; throw() rethrows", async () => {
    let cancelled = 0;
    const make = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode("data: 1\n\ndata: 2\n\n"));
        },
        cancel() {
          cancelled++;
        },
      });
    const first = decodeSse(make());
    expect((await first.next()).value).toEqual({ event: undefined, data: "1" });
    expect(await first.return(undefined)).toEqual({ done: true, value: undefined });
    expect(await first.next()).toEqual({ done: true, value: undefined });
    const second = decodeSse(make());
    await second.next();
    await expect(second.throw(new Error("consumer failed"))).rejects.toThrow("consumer failed");
    expect(cancelled).toBe(2);
    expect(second[Symbol.asyncIterator]()).toBe(second);
  });
});

describe("decodeSse cancellation", () => {
  /** A body that sends one event and then waits forever, recording whether it was cancelled and why. */
  function hangingBody() {
    const state: { cancelled: boolean; reason: unknown } = { cancelled: false, reason: undefined };
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(encoder.encode("data: first\n\n"));
        }
        return new Promise(() => {});
      },
      cancel(reason) {
        state.cancelled = true;
        state.reason = reason;
      },
    });
    return { body, state };
  }

  test("abort while waiting for bytes cancels the body and throws the signal's reason", async () => {
    const { body, state } = hangingBody();
    const controller = new AbortController();
    const reason = new Error("user pressed Esc");
    const seen: string[] = [];
    const run = (async () => {
      for await (const event of decodeSse(body, { signal: controller.signal })) {
        seen.push(event.data);
        setTimeout(() => controller.abort(reason), 5);
      }
    })();
    await expect(run).rejects.toBe(reason);
    expect(seen).toEqual(["first"]);
    expect(state.cancelled).toBe(true);
    expect(state.reason).toBe(reason);
  });

  test("abort of an async-iterable body throws the reason and returns the iterator", async () => {
    let returned = false;
    const iterator: AsyncIterator<Uint8Array> = {
      next: () => new Promise(() => {}),
      return: () => {
        returned = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    const body: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => iterator };
    const controller = new AbortController();
    const run = drain(decodeSse(body, { signal: controller.signal }));
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(returned).toBe(true);
  });

  test("an already aborted signal throws before reading", async () => {
    const { body, state } = hangingBody();
    const reason = new Error("too late");
    await expect(drain(decodeSse(body, { signal: AbortSignal.abort(reason) }))).rejects.toBe(reason);
    expect(state.cancelled).toBe(false);
  });

  test("events already read are not delivered after an abort", async () => {
    const controller = new AbortController();
    const body = streamOf([encoder.encode("data: 1\n\ndata: 2\n\ndata: 3\n\n")]);
    const seen: string[] = [];
    await expect(async () => {
      for await (const event of decodeSse(body, { signal: controller.signal })) {
        seen.push(event.data);
        controller.abort(new Error("stop"));
      }
    }).rejects.toThrow("stop");
    expect(seen).toEqual(["1"]);
  });

  test("abort between reads leaves no unhandled rejection from the read it started (fetch errors the body)", async () => {
    const controller = new AbortController();
    const reason = new Error("aborted between events");
    let sent = false;
    // Like a fetch body under the same signal: once aborted, a read rejects with the abort.
    const body = new ReadableStream<Uint8Array>({
      pull(stream) {
        if (!sent) {
          sent = true;
          stream.enqueue(encoder.encode("data: first\n\n"));
          return;
        }
        return Promise.reject(reason);
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (error: unknown) => unhandled.push(error);
    process.on("unhandledRejection", onUnhandled);
    try {
      await expect(async () => {
        for await (const _event of decodeSse(body, { signal: controller.signal })) controller.abort(reason);
      }).rejects.toBe(reason);
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  test("a consumer that stops early cancels the body", async () => {
    const { body, state } = hangingBody();
    for await (const event of decodeSse(body)) {
      expect(event.data).toBe("first");
      break;
    }
    expect(state.cancelled).toBe(true);
  });
});

async function drain(events: AsyncGenerator<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}
