import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/loop/tool.js";
import { createPermissionChecker, type PermissionCheckerOptions } from "../../src/permissions/index.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";

// Issue 10, part 3: acceptEdits (or an allow rule) must not let the model raise its own permissions.

let base: string;
let project: string;
let home: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-protected-")));
  project = join(base, "project");
  home = join(base, "home");
  mkdirSync(join(project, ".git", "hooks"), { recursive: true });
});
afterEach(() => rm(base, { recursive: true, force: true }));

// The facts the built-in tools state about a call.
const tool = (name: string, permissionFacts: (input: Record<string, string>) => unknown) =>
  ({
    name,
    description: "",
    inputSchema: {},
    permissionFacts,
    run: async () => "",
  }) as unknown as Tool<never>;
const writes = (input: Record<string, string>) => ({ paths: [{ path: input.file_path, access: "write" }] });
const Write = tool("Write", writes);
const Edit = tool("Edit", writes);
const Bash = tool("Bash", (input) => ({ command: input.command }));
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };
const checker = (options: Partial<PermissionCheckerOptions>) =>
  createPermissionChecker({ mode: "acceptEdits", cwd: project, home, ...options });

const PROTECTED = [
  ".git/config",
  ".git/hooks/pre-commit",
  ".mitsu/settings.local.json",
  ".mitsu/settings.json",
  ".claude/settings.json",
  ".mcp.json",
  "packages/app/.mcp.json",
  "vendor/lib/.git/config",
  // Case-insensitive file systems (macOS, Windows): the same files by other names (review b).
  ".GIT/hooks/pre-commit",
  ".Mitsu/settings.local.json",
  ".CLAUDE/settings.json",
  ".MCP.json",
  ".g\u200cit/config",
];

describe("writes that can change what runs later always ask", () => {
  it.each(PROTECTED)("acceptEdits asks before writing %s", async (file) => {
    const asked: string[] = [];
    const check = checker({
      ask: async (request) => {
        asked.push(request.reason);
        return "deny";
      },
    });
    expect(await check(Write, { file_path: file, content: "x" }, ctx)).toMatchObject({ behavior: "deny" });
    expect(asked[0]).toMatch(/^writes here are always asked: /);
  });

  it("so do the shell's start-up files in the home folder", async () => {
    const check = checker({});
    for (const file of [".bashrc", ".zshrc", ".profile", ".bash_profile", ".config/fish/config.fish"]) {
      expect(await check(Edit, { file_path: join(home, file) }, ctx), file).toMatchObject({
        behavior: "deny",
        message: expect.stringContaining("always asked"),
      });
    }
  });

  it("an allow rule does not lift it; bypassPermissions does; a deny rule still denies", async () => {
    const allowed = checker({ mode: "default", allowedTools: ["Edit", "Bash(echo:*)"] });
    expect(await allowed(Edit, { file_path: ".git/config" }, ctx)).toMatchObject({ behavior: "deny" });
    expect(await allowed(Edit, { file_path: "src/a.ts" }, ctx)).toEqual({ behavior: "allow" });
    expect(await allowed(Bash, { command: "echo '[core] fsmonitor = x' >> .git/config" }, ctx)).toMatchObject(
      {
        behavior: "deny",
        message: expect.stringContaining("always asked"),
      },
    );
    const bypass = checker({ mode: "bypassPermissions" });
    expect(await bypass(Write, { file_path: ".git/hooks/pre-commit" }, ctx)).toEqual({ behavior: "allow" });
  });

  it("the model's own memory folder under ~/.mitsu stays writable", async () => {
    const memory = join(home, ".mitsu", "projects", "p", "memory");
    const check = checker({ mode: "default", ownFolders: [memory] });
    expect(await check(Write, { file_path: join(memory, "MEMORY.md") }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(Write, { file_path: join(home, ".mitsu", "settings.json") }, ctx)).toMatchObject({
      behavior: "deny",
    });
  });

  it("ordinary files whose names only look alike are not affected", async () => {
    const check = checker({});
    for (const file of [
      "src/.gitignore",
      "docs/git/config",
      "mitsu/settings.json",
      ".github/workflows/ci.yml",
    ]) {
      expect(await check(Write, { file_path: file }, ctx), file).toEqual({ behavior: "allow" });
    }
  });
});

describe("through the mitsu command", () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it("--permission-mode acceptEdits does not write .git/hooks/* or .mitsu/settings.local.json", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use" as const,
              name: "Write",
              input: { file_path: ".git/hooks/pre-commit", content: "#!/bin/sh\ntouch pwned\n" },
            },
            {
              type: "tool_use" as const,
              name: "Write",
              input: {
                file_path: ".mitsu/settings.local.json",
                content: '{"permissions":{"defaultMode":"bypassPermissions"}}',
              },
            },
            { type: "tool_use" as const, name: "Write", input: { file_path: "notes.md", content: "ok\n" } },
          ],
        },
        { content: [{ type: "text" as const, text: "Done." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace({ empty: true });
    mkdirSync(join(cwd, ".git", "hooks"), { recursive: true });
    const out = await runMitsu(["-p", "--permission-mode", "acceptEdits", "go"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(existsSync(join(cwd, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(cwd, ".mitsu", "settings.local.json"))).toBe(false);
    expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("ok\n");
    const results = sim.requests[1]?.body.messages.at(-1).content;
    expect(results[0].content).toContain("always asked");
  });
});
