import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ptyRuns } from "../support/pty.js";
import { simulatorEnv, tempWorkspace } from "./cli-harness.js";

const pty = ptyRuns();

describe("a PermissionRequest hook's setMode at the terminal", () => {
  it("the status line shows the mode the hook set, and Shift-Tab cycles on from it", async () => {
    const where = tempWorkspace();
    mkdirSync(join(where.home, ".mitsu"), { recursive: true });
    const allow = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: {
          behavior: "allow",
          updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
        },
      },
    });
    writeFileSync(
      join(where.home, ".mitsu", "settings.json"),
      JSON.stringify({
        hooks: {
          PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '${allow}'` }] }],
        },
      }),
    );
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "touch hooked.txt" } }] },
        { content: [{ type: "text", text: "Touched." }] },
      ],
    });
    pty.serve(s);
    const m = pty.spawn([], { cwd: where.cwd, env: { PATH: process.env.PATH, HOME: where.home, ...s.env } });
    await m.waitFor("/help for commands");
    await m.type("touch it");
    m.press("enter");
    await m.waitFor("Touched.");
    await m.waitFor("⏵⏵ accept edits on");
    expect(existsSync(join(where.cwd, "hooked.txt"))).toBe(true);
    m.press("shift-tab");
    await m.waitFor("⏸ plan mode on");
  });
});
