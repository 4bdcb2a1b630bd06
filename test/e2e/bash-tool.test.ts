import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LoggedRequest } from "../../src/simulator/index.js";
import { call, calls, E2eHarness, resultText, SECRET_KEY, type SentResult } from "./e2e-harness.js";

// Bash played by the simulator through the loop: what the command did, and what the model was sent.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

/** Alive and not a zombie (a zombie has ended and only waits to be collected). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc/self/stat")) return true;
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The tool_result blocks in the newest message of a logged request. */
function lastResults(request: LoggedRequest): SentResult[] {
  const content = request.body.messages.at(-1).content as Array<{ type: string }>;
  return content.filter((block): block is SentResult => block.type === "tool_result");
}

describe("Bash through the loop", () => {
  it("runs in the workspace and reports the exit code", async () => {
    await h.run([calls(call("exit", "Bash", { command: "pwd; echo oops >&2; exit 3" }))]);
    expect(h.sent("exit")).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_exit",
      content: `${h.root}\noops\n\n[Exit code: 3]`,
    });
  });

  it("does not pass provider API keys to the command", async () => {
    await h.run([
      calls(
        call("env", "Bash", {
          command:
            'echo "[$ANTHROPIC_API_KEY][$OPENAI_API_KEY]"; echo "home=$HOME"; env | grep -c sk-ant || true',
        }),
      ),
    ]);
    expect(h.sentText("env")).toBe(`[][]\nhome=${h.home}\n0\n\n[Exit code: 0]`);
    expect(JSON.stringify(h.sim.requests.map((request) => request.body))).not.toContain(SECRET_KEY);
  });

  it("caps a long output, names the file with all of it, and the model can Read the middle from there", async () => {
    let savedPath = "";
    await h.run([
      calls(call("long", "Bash", { command: "seq 1 20000" })),
      (request) => {
        const text = resultText(lastResults(request)[0]!);
        savedPath = /The whole output is saved in (\S+): Read it/.exec(text)?.[1] ?? "";
        return calls(call("more", "Read", { file_path: savedPath, offset: 10_000, limit: 2 }));
      },
    ]);
    const text = h.sentText("long");
    expect(text.length).toBeLessThan(31_000);
    expect(text.startsWith("1\n2\n3\n")).toBe(true);
    expect(text).toMatch(/\n\.\.\. \[\d+ characters omitted\] \.\.\.\n/);
    expect(text).toContain(
      "19999\n20000\n\n[Output was 108894 characters; only its beginning and end are shown.",
    );
    expect(text).toMatch(/\[Exit code: 0\]$/);
    expect(text).not.toContain("\n10000\n");
    expect(savedPath.startsWith(`${h.base}/tmp/`)).toBe(true);
    expect(readFileSync(savedPath, "utf8")).toHaveLength(108_894);
    expect(h.sentText("more")).toBe(
      " 10000\t10000\n 10001\t10001\n\n[Showing lines 10000-10001 of 20000. To read more, call Read again with offset 10002 (and a limit).]",
    );
  });

  it("on timeout stops the command and what it started in the background", async () => {
    const { result } = await h.run([
      calls(
        call("slow", "Bash", {
          command: "sleep 30 & echo $! > bg.pid; echo started; sleep 30",
          timeout: 1000,
        }),
      ),
    ]);
    expect(result.reason).toBe("end_turn");
    const sent = h.sent("slow");
    expect(sent.is_error).toBe(true);
    expect(resultText(sent)).toBe(
      "started\n\n[The command timed out after 1000 ms and was stopped, with every process it started. Pass a larger timeout (at most 600000 ms) or run less at once.]",
    );
    const pid = Number(await h.text("bg.pid"));
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });
});
