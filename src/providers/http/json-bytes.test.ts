import { describe, expect, it } from "vitest";
import { jsonBytes } from "./json-bytes.js";

/** What the providers sent before jsonBytes: the string, encoded by fetch. */
const stringified = (value: unknown) => Buffer.from(JSON.stringify(value) as string);

describe("jsonBytes", () => {
  it("is byte for byte the UTF-8 of JSON.stringify, for request-shaped bodies", () => {
    const big = `${"line of a file, é, 日本語, 😀\n".repeat(6_000)}`;
    const bodies: unknown[] = [
      {
        model: "m",
        max_tokens: 10,
        system: [{ type: "text", text: "You are mitsu." }],
        tools: [],
        messages: [
          { role: "user", content: 'hi \u2028 \u0000 "quoted" \\ back' },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "t1", name: "Read", input: { a: [1, 2] } }],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: big }] },
        ],
        stream: true,
      },
      { contents: [{ parts: [{ text: "lone \ud800 surrogate \udfff" }] }], generationConfig: {} },
      { a: undefined, b: () => 1, c: Symbol("s"), d: [undefined, () => 1, Symbol("s"), null, Number.NaN] },
      { first: undefined, second: 2 },
      { only: undefined },
      {},
      { empty: [], nested: [[1, [2]], { x: [] }] },
      Object.assign(Object.create(null), { z: 1, 2: "two", 1: "one" }),
      { date: new Date(0), list: [new Date(1)] },
      [1, "two", { three: 3 }],
      [],
      "a string",
      42,
      null,
    ];
    for (const body of bodies) expect(jsonBytes(body).equals(stringified(body))).toBe(true);
  });

  it("honours a toJSON on the body or on a field as JSON.stringify does", () => {
    const body = { toJSON: () => ({ replaced: true }) };
    expect(jsonBytes(body).toString()).toBe('{"replaced":true}');
    const field = Object.assign([1, 2], { toJSON: () => "list" });
    expect(jsonBytes({ field }).equals(stringified({ field }))).toBe(true);
    class Boxed {
      x = 1;
    }
    expect(jsonBytes({ b: new Boxed() }).equals(stringified({ b: new Boxed() }))).toBe(true);
    expect(jsonBytes(new Boxed()).equals(stringified(new Boxed()))).toBe(true);
  });

  it("throws what JSON.stringify throws", () => {
    const cyclic: Record<string, unknown> = { list: [] };
    (cyclic.list as unknown[]).push(cyclic);
    expect(() => jsonBytes(cyclic)).toThrow(TypeError);
    expect(() => jsonBytes({ n: 1n })).toThrow(TypeError);
    expect(() => jsonBytes(undefined)).toThrow(TypeError);
  });
});
