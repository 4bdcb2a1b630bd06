import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { simulatorEnv, tempWorkspace } from "./cli-harness.js";

// Permission questions (what a call will do; the denial flow) through the real `mitsu` command (dist/cli/bin.js, built by `npm test`) at a real terminal:
// util-linux's `script` gives it a pseudo-terminal, so mitsu runs its interactive mode as a user sees it.
const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");
const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const REJECTED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

let sim: Simulator | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await sim?.close();
  sim = undefined;
});

/** `mitsu` in a pseudo-terminal: what it shows (escape sequences removed), and keys to type. */
function terminal(cwd: string, env: NodeJS.ProcessEnv) {
  const proc = spawn(
    "script",
    ["-qfec", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`, "/dev/null"],
    {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  child = proc;
  let screen = "";
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    screen += chunk
      .toString("utf8")
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
      .replace(/\u001b[\]_P^][^\u0007\u001b]*(\u0007|\u001b\\)/g, "");
    for (const wake of waiters.splice(0)) wake();
  };
  proc.stdout?.on("data", onData);
  proc.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => proc.on("exit", resolve));
  return {
    get screen() {
      return screen;
    },
    exited,
    press: (keys: string) => proc.stdin?.write(keys),
    async waitFor(needle: string | RegExp, timeoutMs = 15_000): Promise<void> {
      const found = () => (typeof needle === "string" ? screen.includes(needle) : needle.test(screen));
      const deadline = Date.now() + timeoutMs;
      while (!found()) {
        if (Date.now() > deadline) throw new Error(`waited for ${needle}; screen:\n${screen}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

describe.skipIf(!hasScript || !existsSync(BIN))("permission questions through the real mitsu command", () => {
  it("answering 3 stops the turn with no further request; the instruction typed next is the next prompt", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "touch marker" } }] },
        { content: [{ type: "text", text: "Understood: listing the files instead." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const t = terminal(cwd, {
      PATH: process.env.PATH,
      HOME: home,
      TERM: "xterm-256color",
      ...s.env,
    });
    await t.waitFor(/mitsu \d/);
    t.press("make a marker\r");
    // The question shows what will happen: the command itself.
    await t.waitFor("touch marker");
    await t.waitFor(/No|\[n\]o/);
    // "3" answers at once in the full-screen interface; the line interface takes it with Enter.
    t.press("3");
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.press("\r");
    await t.waitFor(/refused/);
    expect(s.sim.requests).toHaveLength(1);
    t.press("list the files instead\r");
    await t.waitFor("Understood: listing the files instead.");
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    expect(s.sim.requests).toHaveLength(2);
    expect(s.sim.requests.every((request) => request.status === 200)).toBe(true);
    const messages = s.sim.requests[1]?.body.messages as Array<{ role: string; content: unknown[] }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "user"]);
    expect(messages[2]?.content).toEqual([expect.objectContaining({ is_error: true, content: REJECTED })]);
    expect(messages[3]?.content.at(-1)).toMatchObject({ type: "text", text: "list the files instead" });
    // Nothing written for the model reached the screen.
    expect(t.screen).not.toContain("STOP what you are doing");
    t.press("\u0004");
    await Promise.race([t.exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
  }, 30_000);

  it("an Edit's question shows its diff with the file's line numbers; 1 applies it", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
        {
          content: [
            {
              type: "tool_use",
              name: "Edit",
              input: { file_path: "a.txt", old_string: "two", new_string: "2" },
            },
          ],
        },
        { content: [{ type: "text", text: "Edited the second line." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    writeFileSync(join(cwd, "a.txt"), "one\ntwo\nthree\n");
    const t = terminal(cwd, { PATH: process.env.PATH, HOME: home, TERM: "xterm-256color", ...s.env });
    await t.waitFor(/mitsu \d/);
    t.press("change the second line\r");
    await t.waitFor("Edit file a.txt");
    // Old and new line numbers, the removed line and the added one, and context around them.
    // The dialog may reach the terminal in more than one write: wait for its last line, then check the rest.
    await t.waitFor(/3 3 {3}three/);
    expect(t.screen).toMatch(/1 1 {3}one/);
    expect(t.screen).toMatch(/2 {3}- two/);
    expect(t.screen).toMatch(/ {2}2 \+ 2/);
    t.press("1");
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.press("\r");
    await t.waitFor("Edited the second line.");
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("one\n2\nthree\n");
    t.press("\u0004");
    await Promise.race([t.exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
  }, 30_000);
});
