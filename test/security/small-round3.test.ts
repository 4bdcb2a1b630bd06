import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";

// Issue 21, the smaller defects of part A: `-r` of a file that is no session, a long retry-after called "a moment",
// a file of CR line endings read as empty.

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
/** A key, and nowhere to send it: these runs must stop before any request. */
const KEY = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" };

function workspace() {
  const where = tempWorkspace({ empty: true });
  mkdirSync(where.cwd, { recursive: true });
  return where;
}

describe("mitsu -r with a file that is not a session", () => {
  it("-r /proc/self/environ says it is not a session file, not ENOENT about a lock beside it", async () => {
    const { cwd, home } = workspace();
    const run = await runMitsu(["-p", "-r", "/proc/self/environ", "hi"], { cwd, home, env: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("/proc/self/environ is not a mitsu session file");
    expect(run.stderr).not.toMatch(/ENOENT|\.lock/);
  });

  it("-r of a project file that is not a session is refused before anything is written beside it", async () => {
    const { cwd, home } = workspace();
    writeFileSync(join(cwd, "notes.txt"), "just notes\n");
    const run = await runMitsu(["-p", "-r", join(cwd, "notes.txt"), "hi"], { cwd, home, env: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(cwd, "notes.txt")} is not a mitsu session file`);
  });

  it("-r of a FIFO is refused at once (reading it would wait for a writer forever)", async () => {
    const { cwd, home } = workspace();
    execFileSync("mkfifo", [join(cwd, "pipe.jsonl")]);
    const run = await runMitsu(["-p", "-r", join(cwd, "pipe.jsonl"), "hi"], { cwd, home, env: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("is not a mitsu session file (it is not a regular file)");
  });
});

describe("a rate limit with a long retry-after", () => {
  it("says how long the server asked to wait, not 'try again in a moment'", async () => {
    const s = await simulatorEnv({
      script: [{ ...text("never"), fault: { kind: "http", status: 429, times: 5, retryAfterSeconds: 7200 } }],
    });
    sim = s.sim;
    const { cwd, home } = workspace();
    const run = await runMitsu(["-p", "hi"], { cwd, home, env: s.env });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain("in a moment");
    expect(run.stderr).toContain("asked to wait 2 h");
  });
});

describe("Read of a file with CR line endings (classic Mac)", () => {
  it("shows its lines in print mode, not 'Read (empty)'", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Read", input: { file_path: "old-mac.txt" } }] },
        text("Done."),
      ],
    });
    sim = s.sim;
    const { cwd, home } = workspace();
    writeFileSync(join(cwd, "old-mac.txt"), "first\rsecond\rthird\r");
    const run = await runMitsu(["-p", "read it"], { cwd, home, env: s.env });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("(empty)");
    expect(run.stdout).toMatch(/Read 3 lines/);
    const result = JSON.stringify(s.sim.requests[1]?.body.messages[2]);
    expect(result).toContain("second");
  });
});
