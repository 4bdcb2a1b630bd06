import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

// `--output-format json`: whatever ends the run, stdout is one result a script can parse, and its is_error agrees
// with the exit code.

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("print mode's json when the run fails", () => {
  it("an unknown command and an empty prompt are a result too, as a usage error is", async () => {
    const s = await simulatorEnv({ script: [] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    for (const [prompt, says] of [
      ["/nosuchcmd", "unknown command /nosuchcmd"],
      ["   ", "no prompt"],
    ] as const) {
      for (const format of ["json", "stream-json"]) {
        const out = await runMitsu(["-p", "--output-format", format, prompt], { cwd, home, env: s.env });
        expect(out.code).toBe(1);
        const last = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "null");
        expect(last).toMatchObject({ type: "result", is_error: true });
        expect(last.result).toContain(says);
      }
    }
    expect(sim.requests).toHaveLength(0);
  });

  it("a PermissionRequest hook's deny with interrupt stops the run: exit 1 and is_error agree", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "touch x" } }] }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "no", interrupt: true },
      },
    });
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    writeFileSync(
      join(home, ".mitsu", "settings.json"),
      JSON.stringify({
        hooks: {
          PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '${deny}'` }] }],
        },
      }),
    );
    const out = await runMitsu(["-p", "--output-format", "json", "go"], { cwd, home, env: s.env });
    const result = JSON.parse(out.stdout);
    expect([out.code, result.is_error]).toEqual([1, true]);
    expect(result.subtype).toBe("error_during_execution");
  });

  it("--input-format stream-json: warnings and a bad line's error reach stderr without escape sequences", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    // A settings file's hook event named with a terminal title sequence (a cloned repository's would do the same).
    writeFileSync(
      join(home, ".mitsu", "settings.json"),
      JSON.stringify({ hooks: { "Evil\u001b]0;pwned\u0007": [] } }),
    );
    const stdin = Readable.from([
      "\u001b[2J{not json\n",
      `${JSON.stringify({ type: "user", message: { role: "user", content: "hi" } })}\n`,
    ]);
    const args = ["-p", "--input-format", "stream-json", "--output-format", "json"];
    const { stdout, stderr } = await runMitsu(args, { stdin, cwd, home, env: s.env });
    expect(stderr).toContain("unknown hook event");
    expect(stderr).toContain("ignored an input line");
    expect(stderr).not.toContain("\u001b");
    expect(stdout).toContain('"result":"ok"');
  });
});
