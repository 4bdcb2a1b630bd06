import { describe, expect, it } from "vitest";
import type { Message } from "../messages/index.js";
import { promptTooLong } from "../providers/http/prompt-too-long.js";
import { errorTurn, TestProvider, textTurn } from "../testing/test-provider.js";
import type { AgentEvent } from "./agent-event.js";
import type { ReplaceHistory, ReplaceHistoryInfo } from "./history-replacement.js";
import { type RunAgentOptions, runAgent } from "./run-agent.js";

const prompt: Message = { role: "user", content: [{ type: "text", text: "x".repeat(4_000) }] };
const short: Message = { role: "user", content: [{ type: "text", text: "(compacted) go on" }] };
/** About a token per four characters of the messages, as the compactor estimates. */
const size = (request: { messages: Message[] }) => Math.ceil(JSON.stringify(request.messages).length / 4);

async function collect(options: RunAgentOptions) {
  const events: AgentEvent[] = [];
  const run = runAgent(options);
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

describe("the loop checks every request against the window before sending it", () => {
  it("a request that would pass the window is not sent: without a way to shrink the history the run ends with context_overflow", async () => {
    const provider = new TestProvider([textTurn("never")]);
    const { result } = await collect({
      provider,
      model: "m",
      messages: [prompt],
      maxTokens: 500,
      contextWindow: 1_000,
      requestTokens: size,
    });
    expect(result.reason).toBe("error");
    expect(result.error?.type).toBe("context_overflow");
    expect(provider.requests).toHaveLength(0);
  });

  it("a model whose max_tokens is its whole window (some local models) still gets requests that fit", async () => {
    const provider = new TestProvider([textTurn("done")]);
    const { result } = await collect({
      provider,
      model: "m",
      messages: [short],
      maxTokens: 8_192,
      contextWindow: 8_192,
      requestTokens: size,
    });
    expect(result.reason).toBe("end_turn");
    expect(provider.requests).toHaveLength(1);
  });

  it("asks replaceHistory once more (info.overflow) and sends what then fits", async () => {
    const provider = new TestProvider([textTurn("done")]);
    const asked: ReplaceHistoryInfo[] = [];
    const replaceHistory: ReplaceHistory = (_messages, info) => {
      asked.push(info);
      return info.overflow ? { messages: [short], reason: "compacted" } : undefined;
    };
    const { result } = await collect({
      provider,
      model: "m",
      messages: [prompt],
      maxTokens: 500,
      contextWindow: 1_000,
      requestTokens: size,
      replaceHistory,
    });
    expect(result.reason).toBe("end_turn");
    expect(asked.map((i) => i.overflow)).toEqual([undefined, {}]);
    expect(provider.requests).toHaveLength(1);
    expect(JSON.stringify(provider.requests[0]?.messages)).toContain("(compacted)");
  });
});

describe("a provider's prompt-too-long answer compacts and retries once", () => {
  const tooLong =
    "Anthropic API error 400 invalid_request_error: prompt is too long: 204851 tokens > 200000 maximum";

  it("retries after replaceHistory was told the provider's count", async () => {
    const provider = new TestProvider([errorTurn(tooLong), textTurn("done")]);
    const asked: ReplaceHistoryInfo[] = [];
    const { result, events } = await collect({
      provider,
      model: "m",
      messages: [prompt],
      replaceHistory: (_messages, info) => {
        asked.push(info);
        return info.overflow ? { messages: [short], reason: "compacted" } : undefined;
      },
    });
    expect(result.reason).toBe("end_turn");
    expect(asked.map((i) => i.overflow)).toEqual([undefined, { tokens: 204851 }]);
    expect(events.some((e) => e.type === "warning" && e.code === "prompt-too-long")).toBe(true);
    expect(provider.requests).toHaveLength(2);
  });

  it("a second refusal of the same turn ends the run with the provider's error", async () => {
    const provider = new TestProvider([errorTurn(tooLong), errorTurn(tooLong), textTurn("never")]);
    const { result } = await collect({
      provider,
      model: "m",
      messages: [prompt],
      replaceHistory: (_messages, info) =>
        info.overflow ? { messages: [short], reason: "compacted" } : undefined,
    });
    expect(result.reason).toBe("error");
    expect(result.error?.message).toContain("prompt is too long");
    expect(provider.requests).toHaveLength(2);
  });

  it("recognises each provider's wording, and nothing else", () => {
    const of = (message: string, status = 400) =>
      promptTooLong({ type: "invalid_request_error", message, status });
    expect(of("prompt is too long: 204851 tokens > 200000 maximum")).toEqual({ tokens: 204851 });
    expect(of("input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000")).toEqual({
      tokens: 188240,
    });
    expect(
      of(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.",
      ),
    ).toEqual({ tokens: 130001 });
    expect(
      of("Your input exceeds the context window of this model. Please adjust your input and try again."),
    ).toEqual({});
    expect(
      of("The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."),
    ).toEqual({
      tokens: 1234567,
    });
    expect(of("Rate limit reached", 429)).toBeUndefined();
    expect(of("prompt is too long", 529)).toBeUndefined();
    expect(of("messages.1.content: field required")).toBeUndefined();
  });
});
