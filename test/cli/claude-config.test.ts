import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MODEL_ALIASES } from "../../src/providers/model-catalog.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

describe("Claude Code's published settings start mitsu", () => {
  it("a JSONC settings file with a bad rule, opus[1m] and Claude Code's dontAsk: mitsu starts, warns once with file:line, sends the catalog id", async () => {
    const s = await simulatorEnv({ script: [text("ok")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace({ empty: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    const file = join(home, ".claude", "settings.json");
    // The shape of settings files published with large projects: comments, trailing commas, a number in env.
    writeFileSync(
      file,
      `{
  // shared team settings
  "model": "opus[1m]",
  "env": { "BASH_MAX_TIMEOUT_MS": 600000, },
  "permissions": {
    "allow": ["Bash(npm run lint)", "mcp__*", "WebFetch(domain:docs.example.com)"],
    "deny": ["Bash(rm -rf"],
    "defaultMode": "dontAsk",
  },
}
`,
    );
    const run = await runMitsu(["-p", "hi"], { cwd, home, env: s.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ok");
    expect(sim.requests[0]!.body.model).toBe(MODEL_ALIASES.anthropic.opus);
    expect(run.stderr).toContain(`${file}:7: permissions.deny[0]: Invalid permission rule "Bash(rm -rf"`);
    expect(run.stderr).toContain(`${file}:8: permissions.defaultMode "dontAsk" is Claude Code's`);
  });

  it("--permission-mode dontAsk (a Claude Code script's flag) runs as default, with a notice", async () => {
    const s = await simulatorEnv({ script: [text("fine")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace({ empty: true });
    const run = await runMitsu(["-p", "--permission-mode", "dontAsk", "hi"], { cwd, home, env: s.env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "--permission-mode dontAsk is Claude Code's; mitsu has no such mode and uses default",
    );
  });

  it("a SubagentStart hook (matched on the agent's type) adds its context to that sub-agent's prompt", async () => {
    const task = (id: string, type: string) => ({
      content: [
        {
          type: "tool_use" as const,
          id,
          name: "Task",
          input: { description: "look", prompt: "Where is X?", subagent_type: type },
        },
      ],
    });
    const s = await simulatorEnv({
      script: [
        task("t1", "Explore"),
        text("in x.ts"),
        task("t2", "general-purpose"),
        text("done"),
        text("ok"),
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace({ empty: true });
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    const answer = JSON.stringify({
      hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "Prefer rg." },
    });
    writeFileSync(
      join(home, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          SubagentStart: [{ matcher: "Explore", hooks: [{ type: "command", command: `echo '${answer}'` }] }],
        },
      }),
    );
    const run = await runMitsu(["-p", "find X"], { cwd, home, env: s.env });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("SubagentStart");
    const explore = JSON.stringify(sim.requests[1]!.body.messages);
    expect(explore).toContain("Where is X?");
    expect(explore).toContain("Prefer rg.");
    expect(JSON.stringify(sim.requests[3]!.body.messages)).not.toContain("Prefer rg.");
  });
});
