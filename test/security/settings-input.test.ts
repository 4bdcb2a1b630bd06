import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/loop/tool.js";
import { createPermissionChecker, loadSettings } from "../../src/permissions/index.js";

// Issue 10, part 15: settings and checker input that used to be rejected with an unhelpful error.

let base: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-settings-input-")));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const Bash = {
  name: "Bash",
  description: "",
  inputSchema: {},
  permissionFacts: (input: { command: string }) => ({ command: input.command }),
  run: async () => "",
} as unknown as Tool<never>;
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };

describe("settings files", () => {
  it("may start with a UTF-8 byte order mark (as Windows editors save them)", async () => {
    mkdirSync(join(base, "home", ".mitsu"), { recursive: true });
    writeFileSync(
      join(base, "home", ".mitsu", "settings.json"),
      `\uFEFF${JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } })}`,
    );
    const settings = await loadSettings({ cwd: base, home: join(base, "home") });
    expect(settings.rules.deny.map((rule) => rule.text)).toEqual(["Bash(rm:*)"]);
  });
});

describe("createPermissionChecker's rules", () => {
  it("may be left out, or given as lists of rule strings", async () => {
    expect(
      await createPermissionChecker({ mode: "default", cwd: base })(Bash, { command: "make" }, ctx),
    ).toMatchObject({
      behavior: "deny",
    });
    const check = createPermissionChecker({
      mode: "default",
      cwd: base,
      rules: { allow: ["Bash(make:*)"], deny: ["Bash(rm:*)"] },
    });
    expect(await check(Bash, { command: "make -j4" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(Bash, { command: "rm x" }, ctx)).toMatchObject({ behavior: "deny" });
  });

  it("given in the wrong shape, name the shape expected instead of 'options.rules.deny is not iterable'", () => {
    expect(() => createPermissionChecker({ mode: "default", cwd: base, rules: [] as never })).toThrow(
      /options\.rules must be an object of rule lists, e\.g\. \{ allow: \[/,
    );
    expect(() =>
      createPermissionChecker({ mode: "default", cwd: base, rules: { allow: ["Bash("] } }),
    ).toThrow(/options\.rules\.allow\[0\]/);
  });
});
