import { describe, expect, it } from "vitest";
import { checkTranscript } from "../loop/check-transcript.js";
import type { Message } from "../messages/index.js";
import { estimateMessagesTokens } from "./estimate-tokens.js";
import { trimHistory } from "./trim-history.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const calls = (...ids: string[]): Message => ({
  role: "assistant",
  content: [
    { type: "text", text: "Reading." },
    ...ids.map((id) => ({
      type: "tool_use" as const,
      id,
      name: "Read",
      input: { file_path: `src/${id}.ts` },
    })),
  ],
});
const results = (size: number, ...ids: string[]): Message => ({
  role: "user",
  content: ids.map((id) => ({
    type: "tool_result" as const,
    tool_use_id: id,
    content: `${id}:`.padEnd(size, "x"),
  })),
});

/** A session of `turns` Read turns (two parallel calls each) of `size` characters per result. */
function session(turns: number, size: number): Message[] {
  const out: Message[] = [user("read the whole tree and tell me what it does")];
  for (let t = 0; t < turns; t++) out.push(calls(`a${t}`, `b${t}`), results(size, `a${t}`, `b${t}`));
  return out;
}

describe("trimHistory (the fallback that needs no model call)", () => {
  it("replaces old tool results oldest first by a note naming the call, keeps the newest turns verbatim and every tool_use answered", () => {
    const messages = session(20, 8_000);
    const before = estimateMessagesTokens(messages);
    const done = trimHistory(messages, { targetTokens: Math.floor(before / 2), keepRecentTokens: 10_000 });
    expect(done.tokensAfter).toBeLessThanOrEqual(Math.floor(before / 2));
    expect(checkTranscript(done.messages)).toEqual([]);
    expect(done.messages[0]?.role).toBe("user");
    expect(done.messagesDropped).toBe(0);
    // The oldest result is a note that says what it was; the newest turn is untouched.
    const first = JSON.stringify(done.messages[2]);
    expect(first).toContain(
      'The output of Read({\\"file_path\\":\\"src/a0.ts\\"}) was removed to fit the context window',
    );
    expect(done.messages.at(-1)).toBe(messages.at(-1));
    expect(done.messages.at(-2)).toBe(messages.at(-2));
    // Oldest first: once the target is met, later results stay as they were.
    const untouched = done.messages.findIndex((m, i) => i > 0 && m === messages[i] && m.role === "user");
    expect(untouched).toBeGreaterThan(2);
    expect(done.resultsRemoved).toBeGreaterThan(0);
    // Deterministic: the same input gives the same output.
    expect(
      trimHistory(messages, { targetTokens: Math.floor(before / 2), keepRecentTokens: 10_000 }).messages,
    ).toEqual(done.messages);
  });

  it("drops the oldest messages when notes are not enough, keeping the user's request and a valid transcript", () => {
    const messages = session(40, 400);
    const done = trimHistory(messages, { targetTokens: 2_000, keepRecentTokens: 1_000 });
    expect(done.messagesDropped).toBeGreaterThan(0);
    expect(done.tokensAfter).toBeLessThanOrEqual(2_000);
    expect(checkTranscript(done.messages)).toEqual([]);
    const opening = JSON.stringify(done.messages[0]);
    expect(done.messages[0]?.role).toBe("user");
    expect(opening).toContain("earliest messages of this conversation were removed");
    expect(opening).toContain("read the whole tree and tell me what it does");
  });

  it("cuts a single turn larger than the room (one huge tool result) with a note instead of failing", () => {
    const messages: Message[] = [user("summarise the log"), calls("log"), results(2_000_000, "log")];
    const done = trimHistory(messages, { targetTokens: 20_000, maxTokens: 30_000, keepRecentTokens: 10_000 });
    expect(done.tokensAfter).toBeLessThanOrEqual(30_000);
    expect(done.blocksCut).toBe(1);
    expect(checkTranscript(done.messages)).toEqual([]);
    const text = JSON.stringify(done.messages.at(-1));
    expect(text).toMatch(/characters cut here to fit the context window/);
    // Its start and its end are kept.
    expect(text).toContain("log:xxx");
    expect(text).toMatch(/x"\}\]\}$/);
  });

  it("leaves a transcript under the target as it is", () => {
    const messages = session(2, 100);
    const done = trimHistory(messages, { targetTokens: 100_000, keepRecentTokens: 1_000 });
    expect(done.messages).toEqual(messages);
    expect(done.resultsRemoved + done.messagesDropped + done.blocksCut).toBe(0);
  });
});
