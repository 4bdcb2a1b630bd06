import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import type { HookInput } from "./hook-event.js";
import { runHttpHook } from "./run-http-hook.js";

describe("runHttpHook", () => {
  it("reads at most 1 MB of the answer: a server that keeps sending after it is heard at once, not at the timeout", async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`${JSON.stringify({ decision: "block", reason: "no" })}${" ".repeat(1024 * 1024)}`);
        // Then padding without end.
        const timer = setInterval(() => res.write(" ".repeat(64 * 1024)), 5);
        res.on("close", () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => {
      server.closeAllConnections();
      server.close();
    });
    const started = Date.now();
    const outcome = await runHttpHook({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      input: { hook_event_name: "Stop", stop_hook_active: false } as HookInput,
      env: {},
      timeoutMs: 3_000,
    });
    expect(outcome).toEqual({ kind: "answer", answer: { decision: "block", reason: "no" } });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
