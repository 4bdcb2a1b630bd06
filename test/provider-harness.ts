import type { AssistantMessage } from "../src/messages/index.js";
import type { ModelRequest, Provider } from "../src/providers/provider.js";
import { coalesceDeltas } from "../src/stream/coalesce-deltas.js";
import type { StreamEvent } from "../src/stream/stream-event.js";
import { chunkedResponse, splitBytes, wireBody } from "./fixtures.js";

/** One request as the fake server saw it. */
export interface SeenRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** The text of a request body as `postJson` sends it (UTF-8 bytes), or as a string. */
export function bodyText(body: RequestInit["body"]): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  throw new Error(`bodyText: a body of type ${Object.prototype.toString.call(body)}`);
}

/**
 * A `fetch` that answers each call with the next response (a function is called per use, so a body can be
 * replayed), and records what was sent.
 */
export function fakeFetch(
  responses: Array<Response | (() => Response)>,
  seen: SeenRequest[] = [],
): typeof fetch {
  let i = 0;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    seen.push({ url: String(input), headers, body: JSON.parse(bodyText(init?.body) ?? "null") });
    const next = responses[Math.min(i++, responses.length - 1)];
    if (next === undefined) throw new Error("fakeFetch: no response");
    return typeof next === "function" ? next() : next;
  }) as typeof fetch;
}

export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The message of the one `message-end`, which must be the last event. */
export function endMessage(events: StreamEvent[]): AssistantMessage {
  const ends = events.filter((e) => e.type === "message-end");
  const last = events[events.length - 1];
  if (ends.length !== 1 || last?.type !== "message-end") {
    throw new Error(`expected exactly one message-end, last: ${JSON.stringify(ends.length)}`);
  }
  return last.message;
}

/** Streams a recorded fixture through a provider built on the given fake fetch, split at `seed` (or whole). */
export async function streamFixture(
  make: (fetch: typeof globalThis.fetch) => Provider,
  name: string,
  request: ModelRequest,
  seed?: number,
): Promise<StreamEvent[]> {
  const bytes = wireBody(name);
  const chunks = seed === undefined ? [bytes] : splitBytes(bytes, seed);
  const provider = make(fakeFetch([() => chunkedResponse(chunks)]));
  // Deltas of one network read are merged, so their count depends on the split; what they carry does not.
  return coalesceDeltas(await collect(provider.stream(request)));
}

/** A small neutral request. */
export function simpleRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "test-model",
    system: [{ type: "text", text: "You are terse." }],
    tools: [],
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    maxTokens: 1024,
    ...overrides,
  };
}

/** An error response with a JSON body. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
