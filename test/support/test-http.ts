/**
 * Raw-HTTP helpers for the simulator's own tests (not exported from the package): a POST with the headers a
 * client sends, and an SSE reader that keeps the order of arrival.
 */

export interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary event fields
  data: any;
}

export const API_HEADERS = {
  "content-type": "application/json",
  "x-api-key": "sk-test",
  "anthropic-version": "2023-06-01",
};

/** A minimal valid Messages body, with overrides. */
export function messagesBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: "claude-sim", max_tokens: 1000, messages: [{ role: "user", content: "hi" }], ...overrides };
}

export function postMessages(
  url: string,
  body: unknown,
  headers: Record<string, string> = API_HEADERS,
): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Reads an SSE body to its end, calling `onEvent` as each event arrives (in arrival order). */
export async function readSse(
  response: Response,
  onEvent: (e: SseEvent) => void = () => {},
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      const parsed: SseEvent = { event, data: data === undefined ? undefined : JSON.parse(data) };
      events.push(parsed);
      onEvent(parsed);
      end = buffer.indexOf("\n\n");
    }
  }
  if (buffer.trim() !== "") throw new Error(`stream ended inside a frame: ${JSON.stringify(buffer)}`);
  return events;
}

/** The JSON body of a response, untyped for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the answer
export async function readJson(res: Response): Promise<any> {
  return res.json();
}
