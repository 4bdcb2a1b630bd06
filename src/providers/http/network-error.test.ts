import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { networkError } from "./provider-error.js";

describe("networkError", () => {
  it("names the reason fetch keeps on its cause (connection refused)", async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const cause = await fetch(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
    const error = networkError(cause);
    expect(error.message).toBe("Network error: fetch failed (ECONNREFUSED)");
    expect(error.isRetryable).toBe(true);
  });

  it("keeps a message that already says why", () => {
    expect(networkError(new Error("socket hang up")).message).toBe("Network error: socket hang up");
  });
});
