import { describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../messages/index.js";
import { summarizeCall } from "./summarize-call.js";
import type { Tool } from "./tool.js";

const read = {
  name: "Read",
  description: "Reads a file.",
  inputSchema: {
    type: "object",
    properties: { file_path: { type: "string" } },
    required: ["file_path"],
    additionalProperties: false,
  },
  summarize: (input: { file_path: string }) => `Read ${input.file_path}`,
  run: async () => "",
} as unknown as Tool<never>;

const block = (extra: Partial<ToolUseBlock>): ToolUseBlock => ({
  type: "tool_use",
  id: "t1",
  name: "Read",
  input: {},
  ...extra,
});

describe("summarizeCall", () => {
  it("uses the tool's summary for input that matches its schema", () => {
    expect(summarizeCall(read, block({ input: { file_path: "a.ts" } }))).toBe("Read a.ts");
  });

  it("shows the raw input of a call that did not parse, never `Read undefined` (regression)", () => {
    const shown = summarizeCall(
      read,
      block({ raw_input: '{"file_path": "a.ts" oops', input_status: "invalid" }),
    );
    expect(shown).toBe('Read {"file_path": "a.ts" oops (invalid input)');
    expect(shown).not.toContain("undefined");
  });

  it("shows the input of a call that breaks the schema, cut short", () => {
    const long = "x".repeat(200);
    const shown = summarizeCall(read, block({ input: { path: long } }));
    expect(shown.startsWith('Read {"path":"xxx')).toBe(true);
    expect(shown.endsWith("…")).toBe(true);
    expect(shown.length).toBeLessThan(100);
  });

  it("names a cut call and an unknown tool", () => {
    expect(summarizeCall(read, block({ raw_input: '{"file_pa', input_status: "incomplete" }))).toBe(
      'Read {"file_pa (cut short)',
    );
    expect(summarizeCall(undefined, block({ name: "Nope", input: { a: 1 } }))).toBe('Nope {"a":1}');
  });
});
