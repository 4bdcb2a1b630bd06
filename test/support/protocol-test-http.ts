import { request } from "node:http";

/**
 * Raw-HTTP helpers for the OpenAI and Gemini protocol tests (not exported from the package): a POST to any
 * path, and readers that keep the exact framing so tests can check it.
 */

export const OPENAI_HEADERS = { "content-type": "application/json", authorization: "Bearer sk-test" };
export const GEMINI_HEADERS = { "content-type": "application/json", "x-goog-api-key": "gk-test" };

export function post(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** One SSE frame as sent: its `event:` name (or undefined) and its `data:` text, unparsed. */
export interface RawFrame {
  event: string | undefined;
  data: string;
}

/**
 * Splits a whole SSE body at `separator` ("\n\n" for OpenAI, "\r\n\r\n" for Gemini); throws when the body does
 * not end with a separator or a frame has a line that is not `event:` / `data:`.
 */
export function splitFrames(text: string, separator: string): RawFrame[] {
  if (text === "") return [];
  if (!text.endsWith(separator))
    throw new Error(`body does not end with the separator: ${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -separator.length)
    .split(separator)
    .map((frame) => {
      const lines = frame.split(separator === "\n\n" ? "\n" : "\r\n");
      let event: string | undefined;
      let data: string | undefined;
      for (const line of lines) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data = line.slice(6);
        else throw new Error(`unexpected SSE line: ${JSON.stringify(line)}`);
      }
      if (data === undefined) throw new Error(`frame without data: ${JSON.stringify(frame)}`);
      return { event, data };
    });
}

/** The parsed `data:` of each frame, `[DONE]` left as the string. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the chunks
export function frameData(frames: RawFrame[]): any[] {
  return frames.map((f) => (f.data === "[DONE]" ? f.data : JSON.parse(f.data)));
}

/** A user message long enough (in the simulator's 4-chars-per-token estimate) to reach the prefix cache. */
export function longText(tokens: number, seed = "x"): string {
  return `${seed} `.repeat(tokens * 2);
}

/** Posts with node:http and collects body bytes until the response ends or the socket breaks. */
export function rawPost(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; bytes: number; broken: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: "POST", headers });
    req.on("response", (res) => {
      let bytes = 0;
      let broken = false;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("aborted", () => {
        broken = true;
      });
      res.on("error", () => {
        broken = true;
      });
      res.on("close", () => resolve({ status: res.statusCode ?? 0, bytes, broken: broken || !res.complete }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
