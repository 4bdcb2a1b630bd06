import { describe, expect, it } from "vitest";
import { validateInput } from "./validate-input.js";

const read = {
  name: "Read",
  inputSchema: {
    type: "object",
    properties: { file_path: { type: "string" }, limit: { type: "integer", minimum: 1 } },
    required: ["file_path"],
    additionalProperties: false,
  },
};

describe("validateInput", () => {
  it("accepts input that matches the schema", () => {
    expect(validateInput(read, { file_path: "a.ts", limit: 3 })).toBeUndefined();
  });

  it("names the field and the problem", () => {
    expect(validateInput(read, { file_path: 42 })).toBe("Invalid input for Read: /file_path must be string");
  });

  it("names every problem at once (allErrors), including missing and extra fields", () => {
    const message = validateInput(read, { limit: 0, extra: true });
    expect(message).toContain("Invalid input for Read: ");
    expect(message).toContain("must have required property 'file_path'");
    expect(message).toContain("must NOT have additional properties: extra");
    expect(message).toContain("/limit must be >= 1");
  });

  it("lists the allowed values of an enum", () => {
    const tool = { name: "T", inputSchema: { type: "object", properties: { mode: { enum: ["a", "b"] } } } };
    expect(validateInput(tool, { mode: "c" })).toBe(
      'Invalid input for T: /mode must be equal to one of the allowed values: "a", "b"',
    );
  });

  it("accepts schemas that declare draft 2020-12 and ignores unknown formats and keywords", () => {
    const tool = {
      name: "Mcp",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { url: { type: "string", format: "uri" }, n: { type: "number", "x-custom": 1 } },
      },
    };
    expect(validateInput(tool, { url: "not a uri", n: 1 })).toBeUndefined();
    expect(validateInput(tool, { url: 1 })).toBe("Invalid input for Mcp: /url must be string");
  });

  it("reports a schema that does not compile instead of throwing", () => {
    const tool = {
      name: "Broken",
      inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } },
    };
    expect(validateInput(tool, {})).toMatch(
      /^Tool Broken has an invalid input schema, so it cannot be called: /,
    );
  });

  it("two tools with the same $id but different schemas are each checked against their own", () => {
    const a = { name: "A", inputSchema: { $id: "same", type: "object", required: ["a"] } };
    const b = { name: "B", inputSchema: { $id: "same", type: "object", required: ["b"] } };
    expect(validateInput(a, { a: 1 })).toBeUndefined();
    expect(validateInput(b, { b: 1 })).toBeUndefined();
    expect(validateInput(b, { a: 1 })).toBe("Invalid input for B: must have required property 'b'");
  });

  it("caps the number of errors named", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: "string" }]),
    );
    const tool = { name: "Many", inputSchema: { type: "object", properties } };
    const input = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, i]));
    const message = validateInput(tool, input) ?? "";
    expect(message.split("; ")).toHaveLength(9);
    expect(message).toMatch(/and 12 more$/);
  });
});
