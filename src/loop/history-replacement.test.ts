import { describe, expect, it } from "vitest";
import { createContext } from "../context/create-context.js";
import type { Message } from "../messages/index.js";
import { TestProvider, textTurn, toolTurn, toolUse } from "../testing/test-provider.js";
import type { AgentEvent } from "./agent-event.js";
import { checkTranscript } from "./check-transcript.js";
import type { HistoryReplacedInfo, ReplaceHistory } from "./history-replacement.js";
import { type RunAgentOptions, runAgent } from "./run-agent.js";
import type { Tool } from "./tool.js";

const prompt: Message = { role: "user", content: [{ type: "text", text: "fix the bug" }] };
const summary: Message = {
  role: "user",
  content: [{ type: "text", text: "Summary: Ping was called; go on." }],
};
const ping = {
  name: "Ping",
  description: "ping",
  inputSchema: { type: "object" },
  run: async () => "pong",
} as unknown as Tool<never>;

async function collect(options: RunAgentOptions) {
  const events: AgentEvent[] = [];
  const run = runAgent(options);
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

/** A toy compaction: from turn 2 on, the whole history becomes one summary message. */
const toyCompaction: ReplaceHistory = (messages, info) =>
  info.turn === 2 && messages.length > 1 ? { messages: [summary], reason: "compacted" } : undefined;

describe("history replacement (the compaction seam)", () => {
  it("swaps in the new history before the request, yields an event, and logs it before anything is sent", async () => {
    const provider = new TestProvider([toolTurn([toolUse("t1", "Ping")]), textTurn("done")]);
    const logged: Array<Message | HistoryReplacedInfo> = [];
    const seen: number[] = [];
    const { events, result } = await collect({
      provider,
      model: "m",
      tools: [ping],
      messages: [prompt],
      replaceHistory: (messages, info) => {
        seen.push(info.turn);
        if (info.turn === 2) expect(info.lastInputTokens).toBeGreaterThan(0);
        expect(info.contextWindow).toBe(200_000);
        return toyCompaction(messages, info);
      },
      onHistoryReplaced: (info) => {
        logged.push(info);
      },
      contextWindow: 200_000,
      onMessage: (message) => {
        logged.push(message);
      },
    });
    expect(seen).toEqual([1, 2]);
    expect(result.reason).toBe("end_turn");
    expect(provider.requests[1]?.messages).toEqual([summary]);
    expect(result.messages).toEqual(
      [summary, { role: "assistant", content: [{ type: "text", text: "done" }] }].map((m) =>
        expect.objectContaining(m),
      ),
    );
    const replaced = events.find((e) => e.type === "history-replaced");
    expect(replaced).toEqual({
      type: "history-replaced",
      turn: 2,
      agentPath: [],
      reason: "compacted",
      before: 3,
      after: 1,
    });
    // The replacement reaches the log first (without its trailing user message), then that message as sent.
    const replacedAt = logged.findIndex((entry) => "reason" in entry);
    expect(logged[replacedAt]).toEqual({ reason: "compacted", before: 3, messages: [] });
    expect(logged[replacedAt + 1]).toEqual(summary);
    // The tool results of turn 1 were never sent, so they were never logged either: the summary replaced them.
    expect(logged.slice(0, replacedAt).map((m) => ("role" in m ? m.role : "?"))).toEqual([
      "user",
      "assistant",
    ]);
    expect(checkTranscript(result.messages)).toEqual([]);
  });

  it("refuses an invalid replacement: nothing is sent and the run ends with invalid_transcript", async () => {
    const provider = new TestProvider([toolTurn([toolUse("t1", "Ping")]), textTurn("never")]);
    const dangling: Message = { role: "assistant", content: [toolUse("t9", "Ping")] };
    const { result } = await collect({
      provider,
      model: "m",
      tools: [ping],
      messages: [prompt],
      replaceHistory: (_messages, info) =>
        info.turn === 2 ? { messages: [prompt, dangling, summary], reason: "compacted" } : undefined,
    });
    expect(provider.requests).toHaveLength(1);
    expect(result.reason).toBe("error");
    expect(result.error?.type).toBe("invalid_transcript");
    expect(result.error?.message).toContain("replaceHistory returned an invalid transcript");
  });

  it("a replaceHistory that throws ends the run with an error before the request", async () => {
    const provider = new TestProvider([textTurn("never")]);
    const { result } = await collect({
      provider,
      model: "m",
      messages: [prompt],
      replaceHistory: () => {
        throw new Error("summary failed");
      },
    });
    expect(provider.requests).toHaveLength(0);
    expect(result.error).toEqual({
      type: "replace_history_error",
      message: "replaceHistory failed: summary failed",
    });
  });

  it("the context names the new prefix epoch instead of reporting a broken prefix", async () => {
    const provider = new TestProvider([toolTurn([toolUse("t1", "Ping")]), textTurn("done")]);
    const context = await createContext({
      cwd: "/nonexistent-workspace",
      model: "m",
      tools: [],
      system: [{ type: "text", text: "sys" }],
      instructions: false,
      dateChange: false,
    });
    const { events } = await collect({
      provider,
      model: "m",
      tools: [ping],
      messages: [prompt],
      system: context.system,
      replaceHistory: toyCompaction,
      prepareRequest: (request, info) => context.prepareRequest(request, info),
    });
    expect(context.diagnostics).toEqual([{ ok: true, epoch: "compacted" }]);
    expect(events.filter((e) => e.type === "warning")).toEqual([]);
  });
});
