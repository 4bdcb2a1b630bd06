import { describe, expect, it } from "vitest";
import type { Message } from "../messages/index.js";
import { contextTokens } from "./estimate-tokens.js";
import { splitHistory } from "./split-history.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const call = (id: string): Message => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "Read", input: { file_path: "a" } }],
});
const result = (id: string, size: number): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "x".repeat(size) }],
});

describe("splitHistory", () => {
  it("never starts the kept part with a tool_result: a call and its result stay together or go together", () => {
    const messages = [
      user("go"),
      call("a"),
      result("a", 4000),
      call("b"),
      result("b", 400),
      call("c"),
      result("c", 400),
    ];
    for (const keep of [50, 150, 300, 500, 1200, 5000]) {
      const split = splitHistory(messages, keep);
      expect(split).toBeDefined();
      const first = split?.kept[0];
      if (first) expect(first.content.some((b) => b.type === "tool_result")).toBe(false);
      expect(split?.removed.length).toBeGreaterThan(0);
      expect((split?.removed.length ?? 0) + (split?.kept.length ?? 0)).toBe(messages.length);
    }
    expect(splitHistory(messages, 200)?.kept).toEqual([call("c"), result("c", 400)]);
  });

  it("keeps nothing when the newest turn alone is over the budget, and has nothing to cut in one message", () => {
    expect(splitHistory([user("go"), call("a"), result("a", 8000)], 100)?.kept).toEqual([]);
    expect(splitHistory([user("go")], 100)).toBeUndefined();
  });
});

describe("contextTokens", () => {
  it("counts from the last answer's usage plus an estimate of what came after it", () => {
    const answered: Message = {
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 90,
        output_tokens: 5,
      },
    };
    expect(contextTokens([user("go"), answered])).toBe(1005);
    expect(contextTokens([user("go"), answered, result("z", 400)])).toBeGreaterThan(1100);
    expect(contextTokens([user("go")], 50)).toBeGreaterThan(50);
  });
});
