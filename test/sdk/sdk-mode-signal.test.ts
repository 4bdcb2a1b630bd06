import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { sdkWorld } from "./sdk-harness.js";

describe("SDK mode and Ctrl-C", () => {
  it("SIGINT stops the running prompt with its result, skips the queued ones, and exits 130", async () => {
    const world = await sdkWorld([{ content: [{ type: "text", text: "slow" }], latencyMs: 10_000 }]);
    const stdin = new PassThrough();
    const abort = new AbortController();
    const lines: Array<{ type: string; subtype?: string; errors?: string[] }> = [];
    let buffer = "";
    const stdout = {
      write: (chunk: string) => {
        buffer += chunk;
        for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
          const line = JSON.parse(buffer.slice(0, i));
          buffer = buffer.slice(i + 1);
          lines.push(line);
          // The request is in flight once the init line is out: that is when the user presses Ctrl-C.
          if (line.type === "system" && line.subtype === "init") abort.abort();
        }
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const user = (text: string) =>
      `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;
    stdin.write(user("first"));
    stdin.write(user("second"));
    const started = Date.now();
    const code = await main(["--input-format", "stream-json", "--output-format", "stream-json"], {
      stdin,
      stdout,
      stderr: { write: () => true } as unknown as NodeJS.WritableStream,
      cwd: world.cwd,
      home: world.home,
      env: world.env,
      signal: abort.signal,
    });
    expect(code).toBe(130);
    expect(Date.now() - started).toBeLessThan(8_000);
    const results = lines.filter((l) => l.type === "result");
    expect(results.map((r) => r.subtype)).toEqual(["error_during_execution", "error_during_execution"]);
    expect(results[1]?.errors?.[0]).toContain("interrupted before this message ran");
  });
});
