import { afterEach, describe, expect, it } from "vitest";
import {
  frameData,
  GEMINI_HEADERS,
  longText,
  post,
  rawPost,
  splitFrames,
} from "../../../test/support/protocol-test-http.js";
import { readJson } from "../../../test/support/test-http.js";
import { startSimulator } from "../server.js";
import type { SimTurn, Simulator, SimulatorOptions } from "../types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions): Promise<Simulator> {
  sim = await startSimulator(options);
  return sim;
}

const STREAM = "/v1beta/models/gemini-sim:streamGenerateContent?alt=sse";
const WHOLE = "/v1beta/models/gemini-sim:generateContent";
const user = (text: string) => ({ role: "user", parts: [{ text }] });
const geminiBody = (overrides: Record<string, unknown> = {}) => ({ contents: [user("hi")], ...overrides });
const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary chunk fields
async function streamChunks(s: Simulator, body: unknown, path = STREAM): Promise<any[]> {
  const res = await post(s.url, path, body, GEMINI_HEADERS);
  expect(res.status).toBe(200);
  const raw = await res.text();
  expect(raw).not.toMatch(/[^\r]\n/);
  const frames = splitFrames(raw, "\r\n\r\n");
  expect(frames.every((f) => f.event === undefined)).toBe(true);
  return frameData(frames);
}

const turn: SimTurn = {
  content: [
    { type: "thinking", thinking: "Two cities.", signature: "c2ln" },
    { type: "text", text: "Checking." },
    { type: "tool_use", name: "get_weather", input: { city: "Paris" } },
    { type: "tool_use", name: "get_weather", input: { city: "Rome" } },
  ],
};

describe("gemini: streamGenerateContent", () => {
  it("streams thought and text pieces, whole functionCalls (signature on the first), then STOP, CRLF-framed", async () => {
    const s = await start({ script: [turn], textChunk: 4 });
    const chunks = await streamChunks(s, geminiBody());
    const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(""),
    ).toBe("Two cities.");
    expect(
      parts
        .filter((p) => !p.thought && p.text !== undefined)
        .map((p) => p.text)
        .join(""),
    ).toBe("Checking.");
    expect(parts.filter((p) => p.functionCall)).toEqual([
      { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" },
      { functionCall: { name: "get_weather", args: { city: "Rome" } } },
    ]);
    for (const chunk of chunks) {
      expect(chunk.candidates[0].content.role).toBe("model");
      expect(chunk.usageMetadata).toMatchObject({
        promptTokenCount: expect.any(Number),
        thoughtsTokenCount: 3,
      });
      expect(chunk.modelVersion).toBe("gemini-sim");
    }
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
    expect(chunks.at(-1).candidates[0]).toMatchObject({
      finishReason: "STOP",
      content: { parts: [{ text: "" }] },
    });
    const usage = chunks.at(-1).usageMetadata;
    expect(usage.totalTokenCount).toBe(
      usage.promptTokenCount + usage.candidatesTokenCount + usage.thoughtsTokenCount,
    );
    expect(s.requests[0]).toMatchObject({
      protocol: "gemini",
      status: 200,
      path: "/v1beta/models/gemini-sim:streamGenerateContent",
    });
  });

  it("maxOutputTokens cuts the turn (MAX_TOKENS, a cut call is not sent) and leaves it queued", async () => {
    const s = await start({
      script: [
        {
          content: [
            { type: "text", text: "abcd" },
            { type: "tool_use", name: "f", input: { long: "x".repeat(40) } },
          ],
        },
      ],
    });
    const cut = await streamChunks(s, geminiBody({ generationConfig: { maxOutputTokens: 3 } }));
    expect(cut.at(-1).candidates[0].finishReason).toBe("MAX_TOKENS");
    expect(cut.flatMap((c) => c.candidates[0].content.parts).some((p) => p.functionCall)).toBe(false);
    const whole = await streamChunks(s, geminiBody({ generationConfig: { maxOutputTokens: 100 } }));
    expect(whole.at(-1).candidates[0].finishReason).toBe("STOP");
    expect(whole.flatMap((c) => c.candidates[0].content.parts).filter((p) => p.functionCall)).toHaveLength(1);
  });

  it("a refusal finishes with SAFETY; the key may come as the key query parameter", async () => {
    const s = await start({ script: [{ ...text("No."), stopReason: "refusal" }] });
    const res = await post(s.url, `${STREAM}&key=abc`, geminiBody(), { "content-type": "application/json" });
    const chunks = frameData(splitFrames(await res.text(), "\r\n\r\n"));
    expect(chunks.at(-1).candidates[0].finishReason).toBe("SAFETY");
  });

  it("tool input that is not a JSON object is a script error (Gemini sends args whole)", async () => {
    const s = await start({
      script: [{ content: [{ type: "tool_use", name: "f", rawInput: '{"a": tru' }] }],
    });
    const res = await post(s.url, STREAM, geminiBody(), GEMINI_HEADERS);
    expect(res.status).toBe(500);
    expect((await readJson(res)).error).toMatchObject({ code: 500, status: "INTERNAL" });
    expect(s.requests[0]?.error).toMatch(/args whole as a JSON object/);
  });

  it("streamGenerateContent without alt=sse is refused with a clear message", async () => {
    const s = await start({ script: [text("x")] });
    const res = await post(
      s.url,
      "/v1beta/models/gemini-sim:streamGenerateContent",
      geminiBody(),
      GEMINI_HEADERS,
    );
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toMatch(/alt=sse/);
  });
});

describe("gemini: generateContent", () => {
  it("answers the whole turn: one part per block, finishReason and usage", async () => {
    const s = await start({ script: [turn] });
    const res = await post(s.url, WHOLE, geminiBody(), GEMINI_HEADERS);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.candidates[0]).toEqual({
      content: {
        role: "model",
        parts: [
          { text: "Two cities.", thought: true },
          { text: "Checking." },
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" },
          { functionCall: { name: "get_weather", args: { city: "Rome" } } },
        ],
      },
      finishReason: "STOP",
      index: 0,
    });
    expect(body.usageMetadata.candidatesTokenCount).toBeGreaterThan(0);
  });
});

describe("gemini: validation", () => {
  async function rejected(body: unknown, headers: Record<string, string> = GEMINI_HEADERS) {
    const s = sim ?? (await start({ script: [text("never")] }));
    const res = await post(s.url, STREAM, body, headers);
    return { status: res.status, error: (await readJson(res)).error };
  }
  const call = (name: string) => ({ functionCall: { name, args: {} } });
  const answer = (name: string) => ({ functionResponse: { name, response: { content: "ok" } } });

  it("403 PERMISSION_DENIED without an API key", async () => {
    const { status, error } = await rejected(geminiBody(), { "content-type": "application/json" });
    expect(status).toBe(403);
    expect(error).toMatchObject({ code: 403, status: "PERMISSION_DENIED" });
  });

  it("contents must be non-empty, roles user or model, parts non-empty", async () => {
    expect((await rejected({ contents: [] })).error).toEqual({
      code: 400,
      message: "* GenerateContentRequest.contents: contents is not specified",
      status: "INVALID_ARGUMENT",
    });
    expect(
      (await rejected({ contents: [{ role: "assistant", parts: [{ text: "x" }] }] })).error.message,
    ).toBe("Please use a valid role: user, model.");
    expect((await rejected({ contents: [{ role: "user", parts: [] }] })).error.message).toBe(
      "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.",
    );
  });

  it("every functionCall is answered in the next user content, same count and names", async () => {
    const model = { role: "model", parts: [call("a"), call("b")] };
    const count = await rejected({ contents: [user("go"), model, { role: "user", parts: [answer("a")] }] });
    expect(count.error.message).toBe(
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    );
    const trailing = await rejected({ contents: [user("go"), model] });
    expect(trailing.status).toBe(400);
    const names = await rejected({
      contents: [user("go"), model, { role: "user", parts: [answer("a"), answer("c")] }],
    });
    expect(names.error.message).toMatch(/function response 'c' does not answer a function call/);
    const orphan = await rejected({ contents: [user("go"), { role: "user", parts: [answer("a")] }] });
    expect(orphan.error.message).toBe(
      "Please ensure that function response turn comes immediately after a function call turn.",
    );
    const s = sim!;
    s.enqueue(text("fine"));
    const ok = await post(
      s.url,
      STREAM,
      { contents: [user("go"), model, { role: "user", parts: [answer("b"), answer("a")] }] },
      GEMINI_HEADERS,
    );
    expect(ok.status).toBe(200);
  });

  it("a signed functionCall step of the current turn must come back with its thoughtSignature", async () => {
    const s = await start({ script: [turn, text("done"), text("next"), text("unsigned")] });
    const first = await streamChunks(s, { contents: [user("weather?")] });
    const parts = first.flatMap((chunk) => chunk.candidates[0].content.parts);
    const signed = parts.filter((p) => p.functionCall);
    expect(signed[0].thoughtSignature).toBe("c2ln");
    const answers = { role: "user", parts: [answer("get_weather"), answer("get_weather")] };
    const stripped = { role: "model", parts: signed.map((p) => ({ functionCall: p.functionCall })) };
    const missing = await post(
      s.url,
      STREAM,
      { contents: [user("weather?"), stripped, answers] },
      GEMINI_HEADERS,
    );
    expect(missing.status).toBe(400);
    expect((await readJson(missing)).error).toMatchObject({
      status: "INVALID_ARGUMENT",
      message: expect.stringMatching(
        /^Function call is missing a thought_signature in functionCall parts\..*`default_api:get_weather` , position 2\./,
      ),
    });
    const kept = { role: "model", parts: signed };
    await streamChunks(s, { contents: [user("weather?"), kept, answers] });
    // Once a new user message starts another turn, the old step is no longer checked.
    await streamChunks(s, { contents: [user("weather?"), stripped, answers, user("thanks")] });
    // A step the simulator never signed (no thinking in its turn) needs no signature.
    const unsigned = { role: "model", parts: [call("other")] };
    await streamChunks(s, { contents: [user("go"), unsigned, { role: "user", parts: [answer("other")] }] });
  });

  it("function names and maxOutputTokens", async () => {
    const bad = await rejected(geminiBody({ tools: [{ functionDeclarations: [{ name: "1bad" }] }] }));
    expect(bad.error.message).toMatch(
      /^\* GenerateContentRequest\.tools\[0\]\.function_declarations\[0\]\.name: Invalid function name/,
    );
    const zero = await rejected(geminiBody({ generationConfig: { maxOutputTokens: 0 } }));
    expect(zero.status).toBe(400);
  });
});

describe("gemini: faults", () => {
  it("http: Google's shape, retry headers and a RetryInfo detail", async () => {
    const s = await start({
      script: [{ ...text("later"), fault: { kind: "http", status: 429, retryAfterSeconds: 2 } }],
    });
    const res = await post(s.url, STREAM, geminiBody(), GEMINI_HEADERS);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect((await readJson(res)).error).toEqual({
      code: 429,
      message: "Resource has been exhausted (e.g. check quota).",
      status: "RESOURCE_EXHAUSTED",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }],
    });
    const chunks = await streamChunks(s, geminiBody());
    expect(chunks[0].candidates[0].content.parts).toEqual([{ text: "later" }]);
  });

  it("error-event: an error JSON chunk after N chunks, then the stream ends", async () => {
    const s = await start({
      script: [{ ...text("abcdef"), fault: { kind: "error-event", afterEvents: 2 } }],
      textChunk: 2,
    });
    const chunks = await streamChunks(s, geminiBody());
    expect(chunks).toHaveLength(3);
    expect(chunks[2]).toEqual({
      error: {
        code: 503,
        message: "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      },
    });
    await s.close();
    const whole = await start({
      script: [{ ...text("x"), fault: { kind: "error-event", afterEvents: 0, errorType: "api_error" } }],
    });
    const res = await post(whole.url, WHOLE, geminiBody(), GEMINI_HEADERS);
    expect(res.status).toBe(500);
  });

  it("disconnect after N bytes", async () => {
    const s = await start({
      script: [{ ...text("z".repeat(300)), fault: { kind: "disconnect", afterBytes: 250 } }],
    });
    expect(await rawPost(s.url, STREAM, geminiBody(), GEMINI_HEADERS)).toEqual({
      status: 200,
      bytes: 250,
      broken: true,
    });
  });

  it("the prefix cache reports cachedContentTokenCount from 1024 tokens", async () => {
    const s = await start({ script: [text("1"), text("2")] });
    const head = [user(longText(1200))];
    const first = await streamChunks(s, { contents: head });
    expect(first[0].usageMetadata.cachedContentTokenCount).toBeUndefined();
    const second = await streamChunks(s, {
      contents: [...head, { role: "model", parts: [{ text: "1" }] }, user("more")],
    });
    expect(second[0].usageMetadata.cachedContentTokenCount).toBeGreaterThanOrEqual(1024);
  });
});
