import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/messages/index.js";
import type { ModelRequest } from "../../src/providers/provider.js";
import type { Simulator } from "../../src/simulator/index.js";
import { collect } from "../provider-harness.js";
import { PIXEL } from "../transcript.js";
import { ADAPTERS } from "./conformance-adapters.js";

interface Received {
  headers: IncomingHttpHeaders;
  bytes: Buffer;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A loopback server that keeps each request's raw bytes and headers and answers 400 (not retried). */
async function rawServer(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, bytes: Buffer.concat(chunks) });
      res.writeHead(400, { "content-type": "application/json" });
      res.end('{"error":{"type":"invalid_request_error","message":"seen"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** A history with what a body can hold: non-ASCII text, a lone surrogate, a large tool result, an image. */
function request(model: string): ModelRequest {
  const big = '     1\tline of a file: é, 日本語, 😀, "quotes" and \\ back\n'.repeat(4_000);
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "Read it \u2028 please, lone \ud800 here" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "a.txt", n: [1, 2.5] } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: big },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
          ],
        },
      ],
    },
  ];
  return {
    model,
    system: [{ type: "text", text: "You are mitsu. Über alles: ✓" }],
    tools: [
      {
        name: "Read",
        description: "Reads a file — any file.",
        input_schema: {
          type: "object",
          properties: { file_path: { type: "string" } },
          required: ["file_path"],
        },
      },
    ],
    messages,
    maxTokens: 1024,
  };
}

describe("request bytes on the wire", () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter.name}: the bytes sent are the UTF-8 of JSON.stringify(encode(request).body), with their length`, async () => {
      const server = await rawServer();
      const provider = adapter.provider({ url: server.url } as Simulator);
      const req = request(adapter.model);
      await collect(provider.stream(req));
      expect(server.received).toHaveLength(1);
      const { headers, bytes } = server.received[0] as Received;
      const expected = Buffer.from(JSON.stringify(provider.encode(req).body));
      expect(bytes.length).toBeGreaterThan(200_000);
      expect(bytes.equals(expected)).toBe(true);
      expect(headers["content-length"]).toBe(String(expected.length));
      expect(headers["transfer-encoding"]).toBeUndefined();
      expect(headers["content-type"]).toBe("application/json");
    });
  }

  it("the buffer kept between requests never mixes two bodies: a large one, a small one, then two at once", async () => {
    const server = await rawServer();
    const adapter = ADAPTERS[0] as (typeof ADAPTERS)[number];
    const provider = adapter.provider({ url: server.url } as Simulator);
    const large = request(adapter.model);
    const small: ModelRequest = {
      ...large,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    };
    const other: ModelRequest = {
      ...small,
      system: [{ type: "text", text: "Another system prompt, longer." }],
    };
    await collect(provider.stream(large));
    await collect(provider.stream(small));
    await Promise.all([collect(provider.stream(other)), collect(provider.stream(large))]);
    const expected = [large, small, other, large].map((r) => JSON.stringify(provider.encode(r).body)).sort();
    const got = server.received.map((r) => r.bytes.toString("utf8")).sort();
    expect(got).toEqual(expected);
  });
});
