import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function addCommand(cwd: string, allowed: string): void {
  mkdirSync(join(cwd, ".mitsu", "commands"), { recursive: true });
  writeFileSync(
    join(cwd, ".mitsu", "commands", "mark.md"),
    `---\ndescription: Leave a marker\nallowed-tools: ${allowed}\n---\nLeave the marker file.\n`,
  );
}

const touchTurns = () => [
  { content: [{ type: "tool_use" as const, name: "Bash", input: { command: "touch marker" } }] },
  { content: [{ type: "text" as const, text: "Done." }] },
];

describe("a command's allowed-tools while it is active", () => {
  it("pre-approves the calls it names in a trusted folder: the command runs without asking", async () => {
    const s = await simulatorEnv({ script: touchTurns() });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    addCommand(cwd, "Bash(touch:*)");
    const out = await runMitsu(["-p", "--trust", "/mark"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(existsSync(join(cwd, "marker"))).toBe(true);
  });

  it("approves nothing outside the command: the same call from a plain prompt is denied", async () => {
    const s = await simulatorEnv({ script: touchTurns() });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    addCommand(cwd, "Bash(touch:*)");
    const out = await runMitsu(["-p", "leave a marker"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(existsSync(join(cwd, "marker"))).toBe(false);
  });

  it("does not override a deny rule", async () => {
    const s = await simulatorEnv({ script: touchTurns() });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    addCommand(cwd, "Bash(touch:*)");
    writeFileSync(
      join(cwd, ".mitsu", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Bash(touch:*)"] } }),
    );
    const out = await runMitsu(["-p", "/mark"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    const result = sim.requests[1]?.body.messages.at(-1).content[0];
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("denied by the rule");
  });
});
