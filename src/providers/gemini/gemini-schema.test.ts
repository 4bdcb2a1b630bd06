import { describe, expect, it } from "vitest";
import { toGeminiSchema } from "./gemini-schema.js";

describe("toGeminiSchema", () => {
  it("drops keywords Gemini rejects and keeps the supported subset", () => {
    expect(
      toGeminiSchema({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        additionalProperties: false,
        properties: {
          url: { type: "string", format: "uri", description: "A link" },
          when: { type: "string", format: "date-time" },
          count: { type: "integer", minimum: 1, exclusiveMaximum: 10, format: "int32", examples: [3] },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 3 },
        },
        required: ["url", "missing"],
      }),
    ).toEqual({
      type: "object",
      properties: {
        url: { type: "string", description: "A link" },
        when: { type: "string", format: "date-time" },
        count: { type: "integer", format: "int32", minimum: 1 },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 3 },
      },
      required: ["url"],
    });
  });

  it("turns null unions into nullable, oneOf into anyOf, const into enum", () => {
    expect(
      toGeminiSchema({
        type: "object",
        properties: {
          a: { type: ["string", "null"] },
          b: { anyOf: [{ type: "number" }, { type: "null" }], description: "B" },
          c: { oneOf: [{ type: "string" }, { type: "boolean" }] },
          d: { const: "fixed" },
          e: { type: ["string", "number"] },
          f: { enum: [1, 2], type: "integer" },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        a: { type: "string", nullable: true },
        b: { type: "number", nullable: true, description: "B" },
        c: { anyOf: [{ type: "string" }, { type: "boolean" }] },
        d: { type: "string", enum: ["fixed"] },
        e: { anyOf: [{ type: "string" }, { type: "number" }] },
        f: { type: "integer" },
      },
    });
  });

  it("inlines local $refs and merges allOf, cutting recursion", () => {
    const converted = toGeminiSchema({
      type: "object",
      $defs: {
        Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
        Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } },
      },
      properties: {
        p: { $ref: "#/$defs/Point", description: "Where" },
        q: {
          allOf: [
            { properties: { a: { type: "string" } }, required: ["a"] },
            { properties: { b: { type: "string" } } },
          ],
        },
        n: { $ref: "#/$defs/Node" },
      },
    });
    expect(converted?.properties).toMatchObject({
      p: { type: "object", properties: { x: { type: "number" } }, required: ["x"], description: "Where" },
      q: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a"] },
    });
    type Node = { properties?: Record<string, Node> };
    let node = (converted as Node).properties?.n;
    let depth = 0;
    while (node?.properties?.next) {
      node = node.properties.next;
      depth++;
    }
    expect(depth).toBeLessThanOrEqual(8);
    expect(node).toEqual({ type: "object" });
  });

  it("returns undefined for an object without properties", () => {
    expect(toGeminiSchema({ type: "object", properties: {} })).toBeUndefined();
    expect(toGeminiSchema({ type: "object" })).toBeUndefined();
  });
});
