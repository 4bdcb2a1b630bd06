import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WIRE_DIR } from "../../../test/fixtures.js";
import { endMessage, simpleRequest, streamFixture } from "../../../test/provider-harness.js";
import { encodeGeminiRequest } from "./encode-request.js";
import { createGeminiProvider } from "./gemini-provider.js";

describe("Gemini round trip", () => {
  it("sends a decoded call back with its thoughtSignature, answered by a functionResponse", async () => {
    const make = (fetch: typeof globalThis.fetch) =>
      createGeminiProvider({ apiKey: "g", fetch, newId: () => "call_x" });
    const message = endMessage(
      await streamFixture(make, "gemini-function-call-thought-signature.sse", simpleRequest()),
    );
    const body = encodeGeminiRequest(
      simpleRequest({
        messages: [
          { role: "user", content: [{ type: "text", text: "Which country?" }] },
          message,
          { role: "user", content: [{ type: "tool_result", tool_use_id: "call_x", content: "France" }] },
        ],
      }),
    );
    const recorded = readFileSync(join(WIRE_DIR, "gemini-function-call-thought-signature.sse"), "utf8");
    const signature = /"thoughtSignature": "([^"]+)"/.exec(recorded)?.[1];
    expect(signature).toBeDefined();
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Which country?" }] },
      {
        role: "model",
        parts: [{ functionCall: { name: "get_country", args: {} }, thoughtSignature: signature }],
      },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_country", response: { content: "France" } } }],
      },
    ]);
  });
});
