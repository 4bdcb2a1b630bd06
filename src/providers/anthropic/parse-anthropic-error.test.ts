import { describe, expect, it } from "vitest";
import { ProviderError } from "../http/provider-error.js";
import { parseAnthropicError, parseAnthropicStreamError } from "./parse-anthropic-error.js";

describe("parseAnthropicError", () => {
  it("reads the envelope, request id, retry-after and headers into a typed error", () => {
    const body = {
      type: "error",
      error: { type: "rate_limit_error", message: "Number of requests exceeded" },
    };
    const error = parseAnthropicError(
      429,
      JSON.stringify(body),
      new Headers({ "request-id": "req_011", "retry-after": "12", "content-type": "application/json" }),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      "Anthropic API error 429 rate_limit_error: Number of requests exceeded (request-id req_011)",
    );
    expect(error).toMatchObject({
      name: "ProviderError",
      status: 429,
      type: "rate_limit_error",
      requestId: "req_011",
      retryAfterMs: 12_000,
      isRetryable: true,
      body,
      headers: { "request-id": "req_011", "retry-after": "12", "content-type": "application/json" },
    });
  });

  it("takes the request id from the body when the header is missing; 529 overloaded is retryable", () => {
    const error = parseAnthropicError(
      529,
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_b"}',
      new Headers(),
    );
    expect(error.message).toBe("Anthropic API error 529 overloaded_error: Overloaded (request-id req_b)");
    expect(error.isRetryable).toBe(true);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it("a body that is not JSON (a proxy's HTML page) still gives a clear message", () => {
    const error = parseAnthropicError(502, "<html>Bad Gateway</html>", new Headers());
    expect(error.message).toBe("Anthropic API error 502 http_502: <html>Bad Gateway</html>");
    expect(error).toMatchObject({ type: "http_502", body: "<html>Bad Gateway</html>", isRetryable: true });
    expect(parseAnthropicError(404, "", new Headers()).message).toBe(
      "Anthropic API error 404 http_404: (no message)",
    );
  });

  it("client errors are not retryable unless the server says so", () => {
    const text = '{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}';
    expect(parseAnthropicError(400, text, new Headers()).isRetryable).toBe(false);
    expect(parseAnthropicError(413, text, new Headers()).isRetryable).toBe(false);
    expect(parseAnthropicError(400, text, new Headers({ "x-should-retry": "true" })).isRetryable).toBe(true);
  });
});

describe("parseAnthropicStreamError", () => {
  it("types mid-stream error events; overload and api errors are retryable, request errors not", () => {
    const overloaded = parseAnthropicStreamError({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded", details: null },
      request_id: "req_x",
    });
    expect(overloaded).toMatchObject({ type: "overloaded_error", isRetryable: true, requestId: "req_x" });
    expect(overloaded.status).toBeUndefined();
    expect(overloaded.message).toBe("Anthropic API error overloaded_error: Overloaded (request-id req_x)");
    expect(
      parseAnthropicStreamError({ type: "error", error: { type: "api_error", message: "x" } }).isRetryable,
    ).toBe(true);
    expect(
      parseAnthropicStreamError({ type: "error", error: { type: "invalid_request_error", message: "x" } })
        .isRetryable,
    ).toBe(false);
    expect(parseAnthropicStreamError({ type: "error" }).message).toBe(
      'Anthropic API error api_error: {"type":"error"}',
    );
  });
});
