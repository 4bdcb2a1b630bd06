import { describe, expect, it } from "vitest";
import { createControlChannel } from "./control-channel.js";
import { createPermissionBridge } from "./permission-bridge.js";

describe("canUseTool's updatedPermissions", () => {
  it("an entry of the wrong shape is left out with a warning; the well-formed ones are applied", async () => {
    const lines: Array<{ request_id: string }> = [];
    const channel = createControlChannel((line) => lines.push(JSON.parse(line)));
    const warnings: string[] = [];
    const ask = createPermissionBridge(channel, (m) => warnings.push(m));
    const verdict = ask({
      toolName: "Bash",
      input: { command: "rm -rf build" },
      toolUseId: "t1",
      display: "Bash(rm -rf build)",
      suggestedRules: [],
      reason: "no rule allows it",
    });
    const good = { type: "setMode", mode: "acceptEdits", destination: "session" };
    channel.settle({
      subtype: "success",
      request_id: lines[0]?.request_id,
      response: {
        behavior: "allow",
        updatedPermissions: [
          good,
          {
            type: "addRules",
            rules: [{ toolName: "Bash", ruleContent: "rm:*" }],
            behavior: "deny",
            destination: "everywhere",
          },
        ],
      },
    });
    expect(await verdict).toEqual({ behavior: "allow", updates: [good] });
    expect(warnings).toEqual([
      "canUseTool's answer: updatedPermissions[1]: destination must be one of session, cliArg, localSettings, projectSettings, userSettings; that update was left out",
    ]);
  });
});
