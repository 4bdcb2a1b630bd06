import { describe, expect, it } from "vitest";
import { endMessage, simpleRequest, streamFixture } from "../../../test/provider-harness.js";
import { encodeResponsesRequest } from "./encode-request.js";
import { createOpenAIResponsesProvider } from "./openai-responses-provider.js";

describe("Responses round trip", () => {
  it("sends the decoded reasoning item, commentary and call back in order with the call's output", async () => {
    const make = (fetch: typeof globalThis.fetch) => createOpenAIResponsesProvider({ apiKey: "k", fetch });
    const message = endMessage(
      await streamFixture(make, "openai-responses-text-then-function-call.sse", simpleRequest()),
    );
    const body = encodeResponsesRequest(
      simpleRequest({
        messages: [
          { role: "user", content: [{ type: "text", text: "Capital of PotatoLand?" }] },
          message,
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "call_LabG58Uhrq9kZvR52BYKjToD", content: "Spud City" },
            ],
          },
        ],
      }),
    );
    const input = body.input as Array<Record<string, unknown>>;
    expect(input.map((i) => i.type)).toEqual([
      "message",
      "reasoning",
      "message",
      "function_call",
      "function_call_output",
    ]);
    expect(input[1]).toMatchObject({
      type: "reasoning",
      id: "rs_0fabc13af1ee0049006a691dfe60b081a1baa444d3cf19afba",
      summary: [],
    });
    expect(String(input[1]?.encrypted_content)).toMatch(/^gAAAAABqaR3-pGgSyJcP/);
    expect(input[2]).toEqual({
      type: "message",
      role: "assistant",
      content: "I’ll check the capital lookup tool for “PotatoLand.”",
      phase: "commentary",
    });
    expect(input[3]).toEqual({
      type: "function_call",
      call_id: "call_LabG58Uhrq9kZvR52BYKjToD",
      name: "get_capital",
      arguments: '{"country":"PotatoLand"}',
    });
    expect(input[4]).toEqual({
      type: "function_call_output",
      call_id: "call_LabG58Uhrq9kZvR52BYKjToD",
      output: "Spud City",
    });
  });
});
