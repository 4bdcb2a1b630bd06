import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, drain, simCodingAgent, text, warningsOf } from "../../test/support/sim-coding-agent.js";
import type { ScriptEntry } from "../simulator/types.js";

// A PermissionRequest hook's `updatedPermissions`, applied as Claude Code applies them.

const tool = (name: string, input: Record<string, unknown>, id: string): ScriptEntry => ({
  content: [{ type: "tool_use", id, name, input }],
});
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
    const { agent, sim, root, cwd } = await simCodingAgent([], {
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
    mkdirSync(join(root, "extra"));
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
    const { agent, cwd, home } = await simCodingAgent(
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
    const { agent, cwd } = await simCodingAgent([bash("touch a.txt", "t1"), text("ok")], {
      hooks: hook("touch a.txt", [
        { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "allow", destination: "everywhere" },
      ]),
    });
    const { events } = await drain(agent.prompt("go"));
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(JSON.stringify(warningsOf(events))).toContain("updatedPermissions[0]: destination must be one of");
  });
});
