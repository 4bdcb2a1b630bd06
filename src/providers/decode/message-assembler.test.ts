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
