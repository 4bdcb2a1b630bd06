import { describe, expect, it } from "vitest";
import type { ContentBlock } from "../messages/index.js";
import { estimateBlockTokens, estimateJsonTokens, jsonStringLength } from "./estimate-tokens.js";

describe("the text estimate measures JSON without making it", () => {
  it("jsonStringLength is the length of JSON.stringify, escapes included", () => {
    for (const text of [
      "",
      "plain",
      'a "quoted" \\ path',
      "tabs\tand\nnewlines\r\n",
      "\u0001\u001f\u007f",
      "日本語 ✓ 🙂",
    ])
      expect(jsonStringLength(text)).toBe(JSON.stringify(text).length);
  });

  it("a text block and a tool result weigh what their JSON does", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: 'line 1\n\tline 2 "quoted"\n'.repeat(50) },
      { type: "tool_result", tool_use_id: "toolu_01ABC", content: "     1\tfile line\n".repeat(300) },
      { type: "tool_result", tool_use_id: "toolu_01ABC", content: "failed", is_error: true },
      {
        type: "tool_result",
        tool_use_id: "toolu_01ABC",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "second\n" },
        ],
      },
    ];
    for (const block of blocks) {
      const exact = estimateJsonTokens(block);
      expect(Math.abs(estimateBlockTokens(block) - exact)).toBeLessThanOrEqual(2);
    }
  });
});
