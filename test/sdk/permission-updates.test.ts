import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { collect, sdkWorld } from "./sdk-harness.js";

const bash = (command: string) => ({
  content: [{ type: "tool_use" as const, name: "Bash", input: { command } }],
});

describe("the Claude Agent SDK's query() driving mitsu: canUseTool's updatedPermissions", () => {
  it("rules for the local settings are saved there and hold at once; a deny rule for the session denies", async () => {
    const world = await sdkWorld([
      bash("touch one.txt"),
      bash("touch two.txt"),
      bash("touch three.txt"),
      { content: [{ type: "text", text: "done" }] },
    ]);
    const asked: string[] = [];
    await collect(
      query({
        prompt: "go",
        options: world.options({
          canUseTool: async (_name, input) => {
            asked.push(String(input.command));
            return {
              behavior: "allow",
              updatedPermissions: [
                {
                  type: "addRules",
                  rules: [{ toolName: "Bash", ruleContent: "touch two.txt" }],
                  behavior: "allow",
                  destination: "localSettings",
                },
                {
                  type: "addRules",
                  rules: [{ toolName: "Bash", ruleContent: "touch three.txt" }],
                  behavior: "deny",
                  destination: "session",
                },
              ],
            };
          },
        }),
      }),
    );
    expect(asked).toEqual(["touch one.txt"]);
    expect(["one.txt", "two.txt", "three.txt"].map((f) => existsSync(join(world.cwd, f)))).toEqual([
      true,
      true,
      false,
    ]);
    const local = JSON.parse(readFileSync(join(world.cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(local.permissions.allow).toEqual(["Bash(touch two.txt)"]);
  });

  it("addDirectories: the next Read in the folder, in the same run, works without another question", async () => {
    const world = await sdkWorld([]);
    const extra = join(world.cwd, "..", "extra");
    mkdirSync(extra);
    writeFileSync(join(extra, "notes.txt"), "EXTRA-NOTES\n");
    world.sim.enqueue(
      bash("touch one.txt"),
      {
        content: [
          {
            type: "tool_use" as const,
            id: "r1",
            name: "Read",
            input: { file_path: join(extra, "notes.txt") },
          },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    );
    const asked: string[] = [];
    await collect(
      query({
        prompt: "go",
        options: world.options({
          canUseTool: async (name) => {
            asked.push(name);
            return {
              behavior: "allow",
              updatedPermissions: [{ type: "addDirectories", directories: [extra], destination: "session" }],
            };
          },
        }),
      }),
    );
    expect(asked).toEqual(["Bash"]);
    const answered = JSON.stringify(world.sim.requests.at(-1)?.body.messages.at(-1));
    expect(answered).toContain("EXTRA-NOTES");
  });
});

describe("canUseTool's setMode", () => {
  it("in the answer that also rewrites the input: the approved call runs, and the mode holds from the next call", async () => {
    const world = await sdkWorld([
      {
        content: [
          {
            type: "tool_use" as const,
            name: "Write",
            input: { file_path: "a.txt", content: "from the model\n" },
          },
        ],
      },
      bash("touch later.txt"),
      { content: [{ type: "text", text: "done" }] },
    ]);
    const asked: string[] = [];
    await collect(
      query({
        prompt: "go",
        options: world.options({
          canUseTool: async (name, input) => {
            asked.push(name);
            return {
              behavior: "allow",
              updatedInput: { ...input, content: "from the app\n" },
              updatedPermissions: [{ type: "setMode", mode: "plan", destination: "session" }],
            };
          },
        }),
      }),
    );
    // Applied once, after the approved call was checked: the Write runs as the app rewrote it; plan mode then
    // refuses the Bash call without asking.
    expect(readFileSync(join(world.cwd, "a.txt"), "utf8")).toBe("from the app\n");
    expect(asked).toEqual(["Write"]);
    expect(existsSync(join(world.cwd, "later.txt"))).toBe(false);
  });
});

describe("canUseTool's updatedPermissions for a question a PreToolUse hook asked", () => {
  it("are applied as for any other question: the rule is saved, the mode set", async () => {
    const world = await sdkWorld([
      bash("touch one.txt"),
      bash("touch two.txt"),
      { content: [{ type: "text", text: "done" }] },
    ]);
    const modes: string[] = [];
    await collect(
      query({
        prompt: "go",
        options: world.options({
          canUseTool: async () => ({
            behavior: "allow",
            updatedPermissions: [
              {
                type: "addRules",
                rules: [{ toolName: "Bash", ruleContent: "touch one.txt" }],
                behavior: "allow",
                destination: "localSettings",
              },
              { type: "setMode", mode: "acceptEdits", destination: "session" },
            ],
          }),
          hooks: {
            PreToolUse: [
              {
                hooks: [
                  async (input) => {
                    modes.push(input.permission_mode ?? "");
                    return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } };
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(modes).toEqual(["default", "acceptEdits"]);
    const local = JSON.parse(readFileSync(join(world.cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(local.permissions.allow).toEqual(["Bash(touch one.txt)"]);
  });
});
