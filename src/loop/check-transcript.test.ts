import { describe, expect, it } from "vitest";
import type { ContentBlock, Message } from "../messages/index.js";
import { checkTranscript } from "./check-transcript.js";

const user = (...content: ContentBlock[]): Message => ({ role: "user", content });
const assistant = (...content: ContentBlock[]): Message => ({ role: "assistant", content });
const text = (t: string): ContentBlock => ({ type: "text", text: t });
const call = (id: string): ContentBlock => ({ type: "tool_use", id, name: "Read", input: {} });
const result = (id: string, isError?: boolean): ContentBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content: isError ? "" : "ok",
  ...(isError ? { is_error: true } : {}),
});

describe("checkTranscript", () => {
  it("accepts a valid tool exchange, with results in any order and text after them", () => {
    const messages = [
      user(text("hi")),
      assistant(text("reading"), call("a"), call("b")),
      user(result("b"), result("a"), text("<system-reminder>x</system-reminder>")),
      assistant(text("done")),
    ];
    expect(checkTranscript(messages)).toEqual([]);
  });

  it("accepts an empty final assistant message (a prefill) and consecutive user messages", () => {
    expect(checkTranscript([user(text("a")), user(text("b")), assistant()])).toEqual([]);
  });

  it("rejects an empty transcript and one that starts with the assistant", () => {
    expect(checkTranscript([])).toEqual(["the transcript has no messages"]);
    expect(checkTranscript([assistant(text("x"))])).toEqual([
      "messages[0]: the first message must be a user message",
    ]);
  });

  it("rejects an unknown role", () => {
    const messages = [user(text("a")), { role: "system", content: [text("x")] } as unknown as Message];
    expect(checkTranscript(messages)).toEqual([
      'messages[1]: role must be "user" or "assistant", not "system"',
    ]);
  });

  it("rejects empty content anywhere but in a final assistant message", () => {
    expect(checkTranscript([user(), assistant(text("x"))])).toEqual(["messages[0]: content is empty"]);
    expect(checkTranscript([user(text("a")), assistant(), user(text("b"))])).toEqual([
      "messages[1]: content is empty",
    ]);
  });

  it("rejects a tool_use with no result in the next message, or at the very end", () => {
    expect(checkTranscript([user(text("a")), assistant(call("a")), user(text("b"))])).toEqual([
      "messages[1]: tool_use a has no tool_result in messages[2]",
    ]);
    expect(checkTranscript([user(text("a")), assistant(call("a"))])).toEqual([
      "messages[1]: tool_use a is not answered (the transcript ends after it)",
    ]);
  });

  it("rejects a result that is not in the NEXT message", () => {
    const messages = [user(text("a")), assistant(call("a")), user(text("b")), user(result("a"))];
    expect(checkTranscript(messages)).toEqual([
      "messages[1]: tool_use a has no tool_result in messages[2]",
      "messages[3]: tool_result a has no matching tool_use in the previous assistant message",
    ]);
  });

  it("rejects a tool_result without a tool_use, and a duplicate answer", () => {
    expect(checkTranscript([user(result("x"))])).toEqual([
      "messages[0]: tool_result x has no matching tool_use in the previous assistant message",
    ]);
    expect(checkTranscript([user(text("a")), assistant(call("a")), user(result("a"), result("a"))])).toEqual([
      "messages[2]: tool_use a is answered more than once",
    ]);
  });

  it("rejects tool_results placed after other blocks", () => {
    expect(checkTranscript([user(text("a")), assistant(call("a")), user(text("b"), result("a"))])).toEqual([
      "messages[2]: tool_result a comes after a non-tool_result block",
    ]);
  });

  it("rejects duplicate tool_use ids, within and across messages", () => {
    const messages = [
      user(text("a")),
      assistant(call("a"), call("a")),
      user(result("a")),
      assistant(call("a")),
      user(result("a")),
    ];
    expect(checkTranscript(messages)).toEqual([
      "messages[1]: duplicate tool_use id a (first in messages[1])",
      "messages[3]: duplicate tool_use id a (first in messages[1])",
    ]);
  });

  it("rejects blocks in the wrong role and an error result without content", () => {
    const messages = [user(text("a"), call("u")), assistant(result("u")), user(text("b"))];
    expect(checkTranscript(messages)).toEqual([
      "messages[0]: tool_use u is in a message of role user",
      "messages[1]: tool_result u is in a message of role assistant",
    ]);
    expect(checkTranscript([user(text("a")), assistant(call("a")), user(result("a", true))])).toEqual([
      "messages[2]: tool_result a has is_error but no content",
    ]);
  });

  it("rejects content that is not an array", () => {
    expect(checkTranscript([{ role: "user", content: "hi" } as unknown as Message])).toEqual([
      "messages[0]: content must be an array of blocks",
    ]);
  });
});
