import { describe, expect, it } from "vitest";
import { parseOpenAIError, parseOpenAIStreamError } from "../http/parse-openai-error.js";
import { redactHeaders } from "../http/redact-headers.js";
import { MessageAssembler } from "./message-assembler.js";

describe("MessageAssembler", () => {
  it("numbers blocks by opening order, lets them interleave, and ends once", () => {
    const asm = new MessageAssembler();
    asm.start("m", "id1");
    asm.toolStart("a", "call_a", "Read");
    asm.toolStart("b", "call_b", "Read");
    asm.toolDelta("b", '{"p":');
    asm.toolDelta("a", '{"p":"x"}');
    asm.toolDelta("b", '"y"}');
    asm.close("b");
    asm.text("t", "after");
    const message = asm.finish({ stopReason: "tool_use" });
    expect(message.content).toEqual([
      { type: "tool_use", id: "call_a", name: "Read", input: { p: "x" } },
      { type: "tool_use", id: "call_b", name: "Read", input: { p: "y" } },
      { type: "text", text: "after" },
    ]);
    const events = asm.drain();
    expect(events.map((e) => ("id" in e ? `${e.type}:${e.id}` : e.type))).toEqual([
      "message-start:id1",
      "tool-input-start:0",
      "tool-input-start:1",
      "tool-input-delta:1",
      "tool-input-delta:0",
      "tool-input-delta:1",
      "tool-input-end:1",
      "text-start:2",
      "text-delta:2",
      "tool-input-end:0",
      "text-end:2",
    ]);
    asm.text("t", "ignored");
    expect(asm.drain()).toEqual([]);
  });

  it("judges an empty call: {} when closed, incomplete when cut", () => {
    const asm = new MessageAssembler();
    asm.toolStart("a", "c1", "Now");
    asm.close("a");
    asm.toolStart("b", "c2", "Write");
    const message = asm.finish({ stopReason: "max_tokens" });
    expect(message.content).toEqual([
      { type: "tool_use", id: "c1", name: "Now", input: {} },
      { type: "tool_use", id: "c2", name: "Write", input: {}, raw_input: "", input_status: "incomplete" },
    ]);
  });

  it("keeps JSON that is not an object as invalid input", () => {
    const asm = new MessageAssembler();
    asm.toolStart("a", "c1", "Ls");
    asm.toolDelta("a", "[1,2]");
    asm.close("a");
    expect(asm.finish({ stopReason: "tool_use" }).content[0]).toMatchObject({
      raw_input: "[1,2]",
      input_status: "invalid",
    });
  });
});

describe("MessageAssembler: what every adapter now shares", () => {
  it("keeps a server's tool id where unique, and derives a fresh one for a repeat in the message or the history", () => {
    const asm = new MessageAssembler({ usedToolIds: ["call_0", "call_0_2"] });
    asm.toolStart("a", "call_0", "Read");
    asm.toolStart("b", "call_1", "Read");
    asm.toolStart("c", "call_1", "Read");
    asm.toolStart("d", "", "Read");
    asm.block({ type: "tool_use", id: "call_1", name: "Ls", input: {} });
    const message = asm.finish({ stopReason: "tool_use" });
    const ids = message.content.map((b) => (b.type === "tool_use" ? b.id : ""));
    expect(ids.slice(0, 3)).toEqual(["call_0_3", "call_1", "call_1_2"]);
    expect(ids[3]).toMatch(/^call_[0-9a-f]{24}$/);
    expect(ids[4]).toBe("call_1_3");
    // The events name the id the message keeps.
    const starts = asm.drain().flatMap((e) => (e.type === "tool-input-start" ? [e.toolUseId] : []));
    expect(starts).toEqual(ids.slice(0, 4));
  });

  it("a call the provider closed normally takes its start placeholder when no input streamed; a cut call is incomplete even if its JSON is whole", () => {
    const asm = new MessageAssembler();
    asm.toolStart("a", "c1", "Now", undefined, { tz: "UTC" });
    asm.close("a");
    asm.toolStart("b", "c2", "Read");
    asm.toolDelta("b", '{"p":"x"}');
    asm.close("b", { cut: true });
    expect(asm.finish({ stopReason: "max_tokens" }).content).toEqual([
      { type: "tool_use", id: "c1", name: "Now", input: { tz: "UTC" } },
      {
        type: "tool_use",
        id: "c2",
        name: "Read",
        input: {},
        raw_input: '{"p":"x"}',
        input_status: "incomplete",
      },
    ]);
  });

  it("collects citations and signature parts, and grows an unknown block by its deltas into one block event", () => {
    const asm = new MessageAssembler();
    asm.text("t", "A");
    asm.citation("t", { cited_text: "c1" });
    asm.citation("t", { cited_text: "c2" });
    asm.thinking("k", "hm");
    asm.signature("k", "sig-");
    asm.signature("k", "abc");
    asm.openUnknown("u", "anthropic", { type: "compaction", content: "" });
    asm.unknownDelta("u", { type: "compaction_delta", content: "sum" });
    asm.unknownDelta("u", { type: "compaction_delta", content: "mary" });
    asm.openUnknown("s", "anthropic", { type: "server_tool_use", id: "srv", name: "web_search", input: {} });
    asm.unknownDelta("s", { type: "input_json_delta", partial_json: '{"query":' });
    asm.unknownDelta("s", { type: "input_json_delta", partial_json: '"mitsu"}' });
    const message = asm.finish({ stopReason: "end_turn" });
    expect(message.content).toEqual([
      { type: "text", text: "A", meta: { citations: [{ cited_text: "c1" }, { cited_text: "c2" }] } },
      { type: "thinking", thinking: "hm", signature: "sig-abc" },
      { type: "unknown", provider: "anthropic", data: { type: "compaction", content: "summary" } },
      {
        type: "unknown",
        provider: "anthropic",
        data: { type: "server_tool_use", id: "srv", name: "web_search", input: { query: "mitsu" } },
      },
    ]);
    const blocks = asm.drain().filter((e) => e.type === "block");
    expect(blocks.map((e) => (e.type === "block" ? e.id : ""))).toEqual(["2", "3"]);
  });
});

describe("parseOpenAIError", () => {
  it("reads OpenAI's envelope, a compatible server's detail, and plain text", () => {
    const headers = new Headers({ "x-request-id": "req_9", "retry-after": "2" });
    const error = parseOpenAIError(
      429,
      JSON.stringify({ error: { message: "Slow down", type: "requests", code: "rate_limit_exceeded" } }),
      headers,
    );
    expect(error).toMatchObject({
      type: "requests",
      status: 429,
      requestId: "req_9",
      isRetryable: true,
      retryAfterMs: 2000,
    });
    expect(error.message).toBe("OpenAI API error 429 requests: Slow down (request-id req_9)");
    expect(
      parseOpenAIError(400, JSON.stringify({ detail: "model not found" }), new Headers()).message,
    ).toContain("model not found");
    const plain = parseOpenAIError(502, "Bad Gateway", new Headers());
    expect(plain).toMatchObject({ type: "http_502", isRetryable: true });
    expect(plain.message).toContain("Bad Gateway");
  });

  it("reads errors inside a stream, in both OpenAI shapes", () => {
    expect(parseOpenAIStreamError({ type: "error", code: "server_error", message: "oops" })).toMatchObject({
      type: "server_error",
      isRetryable: true,
    });
    expect(
      parseOpenAIStreamError({ error: { type: "invalid_request_error", message: "bad" } }),
    ).toMatchObject({
      type: "invalid_request_error",
      isRetryable: false,
    });
  });
});

describe("redactHeaders", () => {
  it("hides every secret header, keeping the Bearer scheme", () => {
    expect(
      redactHeaders({ Authorization: "Bearer sk-1", "x-goog-api-key": "g", "api-key": "a", "x-extra": "ok" }),
    ).toEqual({
      Authorization: "Bearer <redacted>",
      "x-goog-api-key": "<redacted>",
      "api-key": "<redacted>",
      "x-extra": "ok",
    });
  });
});
