import { describe, expect, it } from "vitest";
import { chunkedResponse, splitBytes, wireBody } from "../../../test/fixtures.js";
import {
  collect,
  endMessage,
  fakeFetch,
  jsonResponse,
  type SeenRequest,
  simpleRequest,
} from "../../../test/provider-harness.js";
import { createOpenAIChatProvider } from "./openai-chat-provider.js";

const instant = async () => {};

describe("createOpenAIChatProvider errors, retries and abort", () => {
  it("ends with OpenAI's typed error and does not retry a 401", async () => {
    const seen: SeenRequest[] = [];
    const fetch = fakeFetch(
      [
        jsonResponse(
          401,
          {
            error: {
              message: "Incorrect API key provided",
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
          },
          { "x-request-id": "req_123" },
        ),
      ],
      seen,
    );
    const events = await collect(
      createOpenAIChatProvider({ apiKey: "bad", fetch, sleep: instant }).stream(simpleRequest()),
    );
    const m = endMessage(events);
    expect(m.stop_reason).toBe("error");
    expect(m.error).toEqual({
      type: "invalid_request_error",
      status: 401,
      retryable: false,
      message: "OpenAI API error 401 invalid_request_error: Incorrect API key provided (request-id req_123)",
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers.authorization).toBe("Bearer bad");
  });

  it("retries a 429, announcing the retry, then streams the answer", async () => {
    const fetch = fakeFetch([
      jsonResponse(
        429,
        { error: { message: "Rate limit", type: "requests", code: "rate_limit_exceeded" } },
        { "retry-after-ms": "5" },
      ),
      () => chunkedResponse([wireBody("openai-chat-text-basic.sse")]),
    ]);
    const events = await collect(
      createOpenAIChatProvider({ apiKey: "k", fetch, sleep: instant }).stream(simpleRequest()),
    );
    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, delayMs: 5 });
    expect(endMessage(events).stop_reason).toBe("end_turn");
  });

  it("retries an empty stream that failed with a retryable error event", async () => {
    const failing = new TextEncoder().encode('data: {"error":{"message":"busy","type":"server_error"}}\n\n');
    const fetch = fakeFetch([
      () => chunkedResponse([failing]),
      () => chunkedResponse([wireBody("openai-chat-text-basic.sse")]),
    ]);
    const events = await collect(
      createOpenAIChatProvider({ apiKey: "k", fetch, sleep: instant }).stream(simpleRequest()),
    );
    expect(events.some((e) => e.type === "retry")).toBe(true);
    expect(endMessage(events).stop_reason).toBe("end_turn");
  });

  it("ends with aborted when the signal aborts mid-stream", async () => {
    const controller = new AbortController();
    const fetch = fakeFetch([() => chunkedResponse(splitBytes(wireBody("openai-chat-text-basic.sse"), 3))]);
    const provider = createOpenAIChatProvider({ apiKey: "k", fetch, sleep: instant });
    const events = [];
    for await (const event of provider.stream(simpleRequest(), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    const m = endMessage(events);
    expect(m.stop_reason).toBe("aborted");
    expect(m.incomplete).toBe(true);
  });

  it("never throws when fetch itself fails: a network error after the retries", async () => {
    const fetch = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof globalThis.fetch;
    const events = await collect(
      createOpenAIChatProvider({ apiKey: "k", fetch, sleep: instant, retry: { maxRetries: 2 } }).stream(
        simpleRequest(),
      ),
    );
    const m = endMessage(events);
    expect(m.stop_reason).toBe("error");
    expect(m.error?.type).toBe("network_error");
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
  });
});
