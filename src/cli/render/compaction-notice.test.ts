import { describe, expect, it } from "vitest";
import { costReport, sessionStatus } from "../conversation/session-status.js";
import { compactionNotice } from "./compaction-notice.js";

describe("the numbers /compact and /cost print", () => {
  it("a compaction that shrank the context reads as an arrow; one whose two measures would read as growth says what each is", () => {
    expect(compactionNotice({ before: 40, after: 6, tokensBefore: 150_000, tokensAfter: 12_000 })).toBe(
      "compacted: 40 messages → 6; ~150,000 → ~12,000 tokens",
    );
    const grown = compactionNotice({ before: 4, after: 3, tokensBefore: 150, tokensAfter: 7291 });
    expect(grown).not.toContain("→ ~7,291");
    expect(grown).toContain("context ~150 tokens before; the next request ~7,291 with the summary");
  });

  it("/cost prints prices without floating-point noise", () => {
    const agent = {
      cost: () => ({
        calls: 0,
        usd: 0,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
        subagents: {},
      }),
      price: { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.1 * 3 },
    };
    const report = costReport(agent as never);
    expect(report).toContain("0.3 cache read");
    expect(report).not.toContain("0.30000000000000004");
  });

  it("the status line says 'price unknown' for a model without a price, not '$?'", () => {
    const agent = {
      provider: { api: "openai-chat" },
      model: "local-model",
      contextWindow: () => ({ limit: 32_000, used: undefined }),
      cost: () => ({ usd: undefined, last: undefined }),
    };
    const line = sessionStatus(agent as never);
    expect(line).toBe("openai-chat:local-model · context – of 32k · price unknown");
  });

  it("/cost names a sub-agent by its type and description, not its tool id", () => {
    const usage = {
      input_tokens: 10,
      output_tokens: 2,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    const agent = {
      cost: () => ({ calls: 2, usd: 0.01, usage, subagents: { toolu_task1: { usd: 0.005, usage } } }),
      price: undefined,
      history: [
        {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: "toolu_task1",
              name: "Task",
              input: { subagent_type: "Explore", description: "find the auth code", prompt: "…" },
            },
          ],
        },
      ],
    };
    const report = costReport(agent as never);
    expect(report).toContain("sub-agent Explore: find the auth code: $0.0050");
    expect(report).not.toContain("toolu_task1");
  });
});
