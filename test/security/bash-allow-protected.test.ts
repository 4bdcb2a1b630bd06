import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPermissionChecker } from "../../src/permissions/index.js";
import { createBashTool } from "../../src/tools/bash-tool.js";

// Issue 21, attacked again: "writes to .git/, .mitsu/, .claude/ and .mcp.json are always asked, whatever the
// allow rules say" held for Write, Edit and redirections, but an allow rule for a command that writes files ran
// `cp evil .git/hooks/pre-commit` (Bash(cp:*)), `sed -i … .mitsu/settings.local.json` (Bash(sed:*)) or
// `tee .mcp.json` (Bash(tee:*)) unasked.

let cwd: string;
beforeEach(async () => {
  cwd = await realpath(await mkdtemp(join(tmpdir(), "mitsu-allow-protected-")));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };

describe("a Bash allow rule and the protected names", () => {
  it.each([
    ["Bash(cp:*)", "cp evil .git/hooks/pre-commit"],
    ["Bash(sed:*)", "sed -i s/default/bypassPermissions/ .mitsu/settings.local.json"],
    ["Bash(tee:*)", "tee .mcp.json"],
    ["Bash(mv:*)", "mv mine .claude"],
    ["Bash(cp:*)", "cp evil vendor/lib/.git/hooks/post-checkout"],
  ])("%s does not run %j unasked", async (rule, command) => {
    const bash = createBashTool({ cwd, outputDir: join(cwd, "out"), env: {} });
    const check = createPermissionChecker({
      mode: "acceptEdits",
      cwd,
      home: join(cwd, "home"),
      allowedTools: [rule],
    });
    expect(await check(bash as never, { command }, ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("always asked"),
    });
  });

  it("still allows what the rule is for", async () => {
    const bash = createBashTool({ cwd, outputDir: join(cwd, "out"), env: {} });
    const check = createPermissionChecker({
      mode: "default",
      cwd,
      home: join(cwd, "home"),
      allowedTools: ["Bash(cp:*)"],
    });
    expect(
      await check(bash as never, { command: "cp a.txt b.txt && cp .gitignore .gitignore.bak" }, ctx),
    ).toEqual({
      behavior: "allow",
    });
  });
});
