import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";

// Issue 21, item 7: about 10 KB of `[[[[…` as a tool's input crashed the run ("Maximum call stack size
// exceeded", exit 1). Any input gets an is_error result at worst, and the conversation goes on.

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const nested = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

describe("deeply nested tool input", () => {
  it.each([
    ["Bash", (deep: string) => `{"command":"echo hi","x":${deep}}`],
    ["TodoWrite", (deep: string) => `{"todos":${deep}}`],
    ["Write", (deep: string) => `{"file_path":"a.txt","content":"x","extra":{"a":${deep}}}`],
  ])("is the %s call's error, and the run goes on (print and stream-json)", async (name, input) => {
    for (const format of ["text", "stream-json"]) {
      const { cwd, home } = tempWorkspace({ empty: true });
      const s = await simulatorEnv({
        script: [
          { content: [{ type: "tool_use", id: "toolu_deep", name, rawInput: input(nested(10_000)) }] },
          { content: [{ type: "text", text: "Recovered." }] },
        ],
      });
      sim = s.sim;
      const args = ["-p", "go", "--permission-mode", "bypassPermissions", "--output-format", format];
      if (format === "stream-json") args.push("--verbose");
      const out = await runMitsu(args, { cwd, home, env: s.env });
      expect(out.stderr).not.toMatch(/call stack/);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain("Recovered.");
      const result = JSON.stringify(sim.requests[1]?.body.messages.at(-1));
      expect(result).toContain('"is_error":true');
      expect(result).toContain("nests deeper than 100 levels");
      await sim.close();
      sim = undefined;
    }
  });
});
