import { existsSync, readFileSync } from "node:fs";
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
});
