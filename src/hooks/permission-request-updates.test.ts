import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../harness/create-coding-agent.js";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import { type Simulator, startSimulator } from "../simulator/index.js";
import type { ScriptEntry } from "../simulator/types.js";

// A PermissionRequest hook's `updatedPermissions`, applied as Claude Code applies them.

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function setup(script: ScriptEntry[], settings: Record<string, unknown>) {
  sim = await startSimulator({ script });
  const root = mkdtempSync(join(tmpdir(), "mitsu-perm-updates-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(root, "extra"), { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  writeFileSync(join(home, ".mitsu", "settings.json"), JSON.stringify(settings));
  const warnings: string[] = [];
  const agent = await createCodingAgent({
    cwd,
    home,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    model: "anthropic:claude-sonnet-5-5",
    session: { log: false },
    onWarning: (m) => warnings.push(m),
  });
  return { sim, root, cwd, home, warnings, agent };
}

/** The run to its end: the messages of its warnings. */
async function drain(run: AsyncGenerator<AgentEvent, AgentResult>): Promise<string[]> {
  const warnings: string[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return warnings;
    if (next.value.type === "warning") warnings.push(next.value.message);
  }
}

const text = (t: string): ScriptEntry => ({ content: [{ type: "text", text: t }] });
const tool = (name: string, input: Record<string, unknown>, id: string): ScriptEntry => ({
  content: [{ type: "tool_use", id, name, input }],
});
const bash = (command: string, id: string) => tool("Bash", { command }, id);
/** A PermissionRequest hook that logs each question to calls.txt and, when stdin holds `when`, allows with `updates`. */
const hook = (when: string, updates: unknown[]) => {
  const allow = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PermissionRequest",
      decision: { behavior: "allow", updatedPermissions: updates },
    },
  });
  return {
    PermissionRequest: [
      {
        matcher: "Bash|Write",
        hooks: [
          {
            type: "command",
            command: `read -r line; echo "$line" | grep -o '"tool_input":{[^}]*}' >> calls.txt; if echo "$line" | grep -q '${when}'; then echo '${allow}'; fi`,
          },
        ],
      },
    ],
  };
};
const calls = (cwd: string) => readFileSync(join(cwd, "calls.txt"), "utf8").trim().split("\n");

describe("PermissionRequest hooks' updatedPermissions", () => {
  it("rules for the session and the local settings, the mode hold from the next call on; a folder is saved", async () => {
    const { agent, sim, cwd } = await setup([], {
      hooks: hook("touch a.txt", [
        {
          type: "addRules",
          rules: [{ toolName: "Bash", ruleContent: "touch b.txt" }],
          behavior: "allow",
          destination: "session",
        },
        {
          type: "addRules",
          rules: [{ toolName: "Bash", ruleContent: "touch c.txt" }],
          behavior: "deny",
          destination: "localSettings",
        },
        { type: "setMode", mode: "acceptEdits", destination: "session" },
        { type: "addDirectories", directories: ["../extra"], destination: "localSettings" },
      ]),
    });
    sim.enqueue(
      bash("touch a.txt", "t1"),
      bash("touch b.txt", "t2"),
      bash("touch c.txt", "t3"),
      tool("Write", { file_path: join(cwd, "w.txt"), content: "w" }, "t4"),
      text("ok"),
    );
    await drain(agent.prompt("go"));
    expect(calls(cwd)).toEqual(['"tool_input":{"command":"touch a.txt"}']);
    expect(existsSync(join(cwd, "a.txt"))).toBe(true);
    expect(existsSync(join(cwd, "b.txt"))).toBe(true);
    expect(existsSync(join(cwd, "c.txt"))).toBe(false);
    expect(JSON.stringify(sim.requests[3]?.body.messages.at(-1))).toContain("Bash(touch c.txt)");
    // acceptEdits: the Write in the workspace was not asked.
    expect(readFileSync(join(cwd, "w.txt"), "utf8")).toBe("w");
    expect(agent.permissions.currentMode()).toBe("acceptEdits");
    const local = JSON.parse(readFileSync(join(cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(local).toEqual({
      permissions: { deny: ["Bash(touch c.txt)"], additionalDirectories: ["../extra"] },
    });
  });

  it("removeRules and replaceRules change the user's settings file and hold at once; its other keys stay", async () => {
    const settings = {
      permissions: { allow: ["Bash(touch keep.txt)", "Bash(touch gone.txt)"], ask: ["Bash(touch old.txt)"] },
    };
    const { agent, cwd, home } = await setup(
      [
        bash("touch first.txt", "t1"),
        bash("touch gone.txt", "t2"),
        bash("touch keep.txt", "t3"),
        bash("touch new.txt", "t4"),
        text("ok"),
      ],
      {
        ...settings,
        hooks: hook("touch first.txt", [
          {
            type: "removeRules",
            rules: [{ toolName: "Bash", ruleContent: "touch gone.txt" }],
            behavior: "allow",
            destination: "userSettings",
          },
          {
            type: "replaceRules",
            rules: [{ toolName: "Bash", ruleContent: "touch new.txt" }],
            behavior: "ask",
            destination: "userSettings",
          },
        ]),
      },
    );
    await drain(agent.prompt("go"));
    // gone.txt is asked now (the hook answers nothing: print mode denies); keep.txt is still allowed by its rule;
    // new.txt is asked (its ask rule), old.txt's ask rule is gone.
    expect(calls(cwd)).toEqual([
      '"tool_input":{"command":"touch first.txt"}',
      '"tool_input":{"command":"touch gone.txt"}',
      '"tool_input":{"command":"touch new.txt"}',
    ]);
    expect(["first.txt", "gone.txt", "keep.txt", "new.txt"].map((f) => existsSync(join(cwd, f)))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    const saved = JSON.parse(readFileSync(join(home, ".mitsu", "settings.json"), "utf8"));
    expect(saved.permissions).toEqual({ allow: ["Bash(touch keep.txt)"], ask: ["Bash(touch new.txt)"] });
    expect(saved.hooks.PermissionRequest).toHaveLength(1);
  });

  it("an update of the wrong shape makes the hook's answer an error: the question stays (print mode denies)", async () => {
    const { agent, cwd } = await setup([bash("touch a.txt", "t1"), text("ok")], {
      hooks: hook("touch a.txt", [
        { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "allow", destination: "everywhere" },
      ]),
    });
    const warnings = await drain(agent.prompt("go"));
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(JSON.stringify(warnings)).toContain("updatedPermissions[0]: destination must be one of");
  });
});
