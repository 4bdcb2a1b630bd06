import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/loop/tool.js";
import { createPermissionChecker } from "../../src/permissions/index.js";

// Issue 21, attacked again: with mitsu started in the home folder, acceptEdits allowed Write and Edit anywhere in
// it — ~/.gitconfig (a core.fsmonitor or an alias runs at the next git command), ~/.ssh/config (a ProxyCommand),
// systemd user units and autostart entries (run at the next login), ~/.local/bin/git (first on Ubuntu's PATH).
// Only the shell's start-up files were always asked. The sandbox masks the same list (sandbox-masks.ts).

let home: string;
beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "mitsu-home-writes-")));
});
afterEach(() => rm(home, { recursive: true, force: true }));

const Write = {
  name: "Write",
  description: "",
  inputSchema: {},
  permissionFacts: (input: Record<string, string>) => ({
    paths: [{ path: input.file_path, access: "write" }],
  }),
  run: async () => "",
} as unknown as Tool<never>;
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };

describe("acceptEdits in the home folder", () => {
  it.each([
    ".gitconfig",
    ".ssh/config",
    ".ssh/authorized_keys",
    ".config/git/config",
    ".config/systemd/user/x.service",
    ".config/autostart/x.desktop",
    ".config/environment.d/x.conf",
    ".local/bin/git",
    ".bash_aliases",
    ".pam_environment",
  ])("asks before writing ~/%s", async (file) => {
    const check = createPermissionChecker({ mode: "acceptEdits", cwd: home, home });
    expect(await check(Write, { file_path: join(home, file) }, ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("always asked"),
    });
  });

  it("still writes an ordinary file there without asking", async () => {
    const check = createPermissionChecker({ mode: "acceptEdits", cwd: home, home });
    expect(await check(Write, { file_path: join(home, "notes", "todo.md") }, ctx)).toMatchObject({
      behavior: "allow",
    });
  });
});
