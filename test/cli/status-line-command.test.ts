import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  readStatusLineSetting,
  runStatusLine,
  statusLineInput,
} from "../../src/cli/tui/status-line-command.js";
import { trustFolder } from "../../src/permissions/trust-store.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function where() {
  const root = mkdtempSync(join(tmpdir(), "mitsu-status-line-"));
  roots.push(root);
  const cwd = join(root, "p");
  const home = join(root, "h");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  return { cwd, home };
}

describe("the statusLine command (Claude Code's setting)", () => {
  it("is the user's; a project's counts only once the folder is trusted", async () => {
    const { cwd, home } = where();
    writeFileSync(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({ statusLine: { type: "command", command: "echo repo" } }),
    );
    expect(await readStatusLineSetting(cwd, home)).toBeUndefined();
    // A user's settings file, JSONC as published.
    writeFileSync(
      join(home, ".claude", "settings.json"),
      '{\n  // mine\n  "statusLine": { "type": "command", "command": "~/.claude/statusline.sh", "padding": 0 },\n}\n',
    );
    expect((await readStatusLineSetting(cwd, home))?.command).toBe("~/.claude/statusline.sh");
    await trustFolder(cwd, { home });
    expect((await readStatusLineSetting(cwd, home))?.command).toBe("echo repo");
  });

  it("reads Claude Code's JSON on stdin and shows the first line of its output, without control sequences", async () => {
    const { cwd } = where();
    const input = statusLineInput({
      sessionId: "s1",
      cwd,
      model: "claude-sonnet-5-5",
      costUsd: 0.25,
      version: "1",
    });
    const line = await runStatusLine(
      `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log("\\u001b[2m"+j.model.display_name+" $"+j.cost.total_cost_usd+"\\u001b[0m");console.log("second")})'`,
      input,
      { cwd, env: { PATH: process.env.PATH } },
    );
    expect(line).toBe("claude-sonnet-5-5 $0.25");
    expect(await runStatusLine("exit 3", input, { cwd, env: { PATH: process.env.PATH } })).toBeUndefined();
  });
});
