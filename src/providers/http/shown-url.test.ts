import { describe, expect, it } from "vitest";
import { postJson } from "./post-json.js";
import { ProviderError } from "./provider-error.js";
import { shownUrl } from "./shown-url.js";

describe("a provider's URL in an error message", () => {
  it("a password in the base URL does not reach the error (print mode's json result carries it)", async () => {
    const url = "http://user:hunter2@127.0.0.1:9/v1/messages";
    // Node's own fetch refuses such a URL, quoting it whole.
    const error = await postJson({
      url,
      headers: {},
      body: {},
      parseError: () => new ProviderError({ message: "x", type: "x", isRetryable: false }),
      retry: { maxRetries: 0 },
    }).then(
      () => new Error("no error"),
      (e: unknown) => e as Error,
    );
    expect(error.message).toContain("Network error calling http://<redacted>@127.0.0.1:9/v1/messages");
    expect(error.message).not.toContain("hunter2");
  });

  it("credential-like query values are redacted; the rest stays as it was", () => {
    expect(shownUrl("https://proxy.example/v1?key=AIza123&region=eu")).toBe(
      "https://proxy.example/v1?key=<redacted>&region=eu",
    );
    expect(shownUrl("https://api.example/v1/messages")).toBe("https://api.example/v1/messages");
    expect(shownUrl("not a url")).toBe("not a url");
  });
});
