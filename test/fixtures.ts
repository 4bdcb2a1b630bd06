import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The recorded provider streams (`test/fixtures/wire`, with their INDEX.md), kept in the repository. */
export const WIRE_DIR = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "wire");

/**
 * The response body of a recorded stream, as bytes. `.sse` files are returned byte for byte; `.json`
 * files (arrays of `data:` payloads) are framed as SSE: Anthropic payloads get `event: <type>` lines,
 * the others only `data:` lines.
 */
export function wireBody(name: string): Uint8Array {
  const text = readFileSync(join(WIRE_DIR, name));
  if (name.endsWith(".sse")) return new Uint8Array(text);
  // The recorded files hold each payload as a JSON value (one source line each); strings are accepted too.
  const payloads = (JSON.parse(text.toString("utf8")) as unknown[]).map((p) =>
    typeof p === "string" ? p : JSON.stringify(p),
  );
  const anthropic = name.startsWith("anthropic-");
  const framed = payloads
    .map((p) => {
      const type = anthropic ? (JSON.parse(p) as { type: string }).type : undefined;
      return `${type ? `event: ${type}\n` : ""}data: ${p}\n\n`;
    })
    .join("");
  return new TextEncoder().encode(framed);
}

/** A deterministic PRNG (mulberry32), so a failing split can be reproduced from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits bytes into chunks: every size 1..maxChunk at random (seeded), so UTF-8 sequences and lines split anywhere. */
export function splitBytes(bytes: Uint8Array, seed: number, maxChunk = 17): Uint8Array[] {
  const rand = prng(seed);
  const out: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    const n = 1 + Math.floor(rand() * maxChunk);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** A Response whose body delivers the given chunks one read at a time, like a socket. */
export function chunkedResponse(chunks: Uint8Array[], init: ResponseInit = {}): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[i++];
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" }, ...init });
}
