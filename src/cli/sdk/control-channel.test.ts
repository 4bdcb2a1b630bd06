import { describe, expect, it } from "vitest";
import { createControlChannel } from "./control-channel.js";

function channel() {
  const lines: Array<Record<string, unknown>> = [];
  const c = createControlChannel((line) => lines.push(JSON.parse(line)));
  return { c, lines };
}

describe("createControlChannel", () => {
  it("a request resolves with the app's response and rejects with its error", async () => {
    const { c, lines } = channel();
    const ok = c.request({ subtype: "can_use_tool", tool_name: "Bash" });
    const bad = c.request({ subtype: "hook_callback" });
    const [first, second] = lines;
    expect(first).toMatchObject({ type: "control_request", request: { subtype: "can_use_tool" } });
    expect(
      c.settle({ subtype: "success", request_id: first?.request_id, response: { behavior: "allow" } }),
    ).toBe(true);
    expect(c.settle({ subtype: "error", request_id: second?.request_id, error: "no callback" })).toBe(true);
    await expect(ok).resolves.toEqual({ behavior: "allow" });
    await expect(bad).rejects.toThrow("no callback");
    // Settled once: a second answer to the same id is an answer to nothing.
    expect(c.settle({ subtype: "success", request_id: first?.request_id })).toBe(false);
    expect(c.settle({ subtype: "success", request_id: "never-sent" })).toBe(false);
  });

  it("an aborted request tells the app with control_cancel_request; close rejects what waits", async () => {
    const { c, lines } = channel();
    const abort = new AbortController();
    const cancelled = c.request({ subtype: "can_use_tool" }, abort.signal);
    abort.abort();
    await expect(cancelled).rejects.toThrow("cancelled");
    expect(lines[1]).toEqual({ type: "control_cancel_request", request_id: lines[0]?.request_id });
    const waiting = c.request({ subtype: "mcp_message" });
    c.close("stdin ended");
    await expect(waiting).rejects.toThrow("stdin ended");
    await expect(c.request({ subtype: "mcp_message" })).rejects.toThrow("stdin ended");
  });

  it("answers the app's requests with success and error responses", () => {
    const { c, lines } = channel();
    c.respond("r1", { still_queued: [] });
    c.respondError("r2", "not supported by mitsu");
    expect(lines).toEqual([
      {
        type: "control_response",
        response: { subtype: "success", request_id: "r1", response: { still_queued: [] } },
      },
      {
        type: "control_response",
        response: { subtype: "error", request_id: "r2", error: "not supported by mitsu" },
      },
    ]);
  });
});
