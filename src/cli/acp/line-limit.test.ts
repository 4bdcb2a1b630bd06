import { describe, expect, it } from "vitest";
import { limitLines } from "./line-limit.js";

async function through(chunks: string[], max: number) {
  const dropped: Array<string | number | null> = [];
  const encoder = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  let text = "";
  const decoder = new TextDecoder();
  for await (const part of limitLines(input, max, (id) =>
    dropped.push(id),
  ) as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(part);
  }
  return { text, dropped };
}

describe("limitLines", () => {
  it("passes lines whole, drops one past the limit (naming its id) and goes on with the next", async () => {
    const long = `{"jsonrpc":"2.0","id":7,"method":"x","params":"${"a".repeat(100)}"}\n`;
    const result = await through(
      ['{"id":1}\n{"id', '":2}\n', long.slice(0, 30), long.slice(30), '{"id":3}\n'],
      50,
    );
    expect(result.text).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    expect(result.dropped).toEqual([7]);
  });

  it("a dropped line without an id is answered with a null id; a last line without a newline passes", async () => {
    const result = await through([`${"x".repeat(80)}\n`, "tail"], 50);
    expect(result).toEqual({ text: "tail", dropped: [null] });
  });
});
