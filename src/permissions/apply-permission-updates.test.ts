import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderSet } from "../fs/folder-set.js";
import { applyPermissionUpdates, type UpdatablePermissions } from "./apply-permission-updates.js";
import { ownRulesPath } from "./own-rules.js";
import type { PermissionMode } from "./permission-mode.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function target(): UpdatablePermissions & { modes: PermissionMode[] } {
  const root = mkdtempSync(join(tmpdir(), "mitsu-apply-updates-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const modes: PermissionMode[] = [];
  const home = join(root, "home");
  return {
    cwd,
    home,
    deny: [],
    ask: [],
    allowRules: [],
    folders: new FolderSet(cwd, home),
    setMode: (mode) => modes.push(mode),
    modes,
  };
}
const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("applyPermissionUpdates", () => {
  it("a rule that does not parse is neither applied nor saved (it would warn at every start)", async () => {
    const t = target();
    const warnings: string[] = [];
    await applyPermissionUpdates(
      [
        {
          type: "addRules",
          rules: [
            { toolName: "Bash", ruleContent: "" },
            { toolName: "Bash", ruleContent: "npm test" },
          ],
          behavior: "deny",
          destination: "projectSettings",
        },
      ],
      t,
      (m) => warnings.push(m),
    );
    expect(t.deny.map((r) => r.text)).toEqual(["Bash(npm test)"]);
    expect(warnings.join("\n")).toContain("Bash()");
    expect(read(join(t.cwd, ".mitsu", "settings.json")).permissions).toEqual({ deny: ["Bash(npm test)"] });
  });

  it("a folder for the user's settings is saved whole: that file is read against the home folder, not this project", async () => {
    const t = target();
    const expected = [join(t.cwd, "..", "extra"), join(t.home, "notes")];
    for (const dir of expected) mkdirSync(dir, { recursive: true });
    await applyPermissionUpdates(
      [{ type: "addDirectories", directories: ["../extra", "~/notes"], destination: "userSettings" }],
      t,
    );
    expect(t.folders.list()).toEqual(expected.map((dir) => realpathSync(dir)));
    expect(read(join(t.home, ".mitsu", "settings.json")).permissions.additionalDirectories).toEqual(expected);
  });

  it("a local allow rule from a hook that is not the user's is saved, not remembered as the user's own", async () => {
    const rule = { toolName: "Bash", ruleContent: "make" };
    const project = target();
    await applyPermissionUpdates(
      [
        {
          type: "addRules",
          rules: [rule],
          behavior: "allow",
          destination: "localSettings",
          notTheUsers: true,
        },
      ],
      project,
    );
    expect(read(join(project.cwd, ".mitsu", "settings.local.json")).permissions.allow).toEqual([
      "Bash(make)",
    ]);
    expect(existsSync(ownRulesPath(project.home))).toBe(false);
    const own = target();
    await applyPermissionUpdates(
      [{ type: "addRules", rules: [rule], behavior: "allow", destination: "localSettings" }],
      own,
    );
    expect(existsSync(ownRulesPath(own.home))).toBe(true);
  });

  it("a project's .mitsu that links to the user's ~/.mitsu is not written through (every project reads that file)", async () => {
    const t = target();
    mkdirSync(join(t.home, ".mitsu"), { recursive: true });
    writeFileSync(join(t.home, ".mitsu", "settings.json"), "{}");
    mkdirSync(t.cwd, { recursive: true });
    symlinkSync(join(t.home, ".mitsu"), join(t.cwd, ".mitsu"));
    const warnings: string[] = [];
    await applyPermissionUpdates(
      [
        {
          type: "addRules",
          rules: [{ toolName: "Bash" }],
          behavior: "allow",
          destination: "projectSettings",
        },
        { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "allow", destination: "localSettings" },
      ],
      t,
      (m) => warnings.push(m),
    );
    expect(readFileSync(join(t.home, ".mitsu", "settings.json"), "utf8")).toBe("{}");
    expect(existsSync(join(t.home, ".mitsu", "settings.local.json"))).toBe(false);
    expect(warnings.join("\n")).toContain("outside the project");
    // The session still has the rule: the hook's allow holds for this run.
    expect(t.allowRules.map((r) => r.text)).toEqual(["Bash", "Bash"]);
  });

  it("nor through a settings file that links out (the user's settings would be read into the project's file)", async () => {
    const t = target();
    mkdirSync(join(t.home, ".mitsu"), { recursive: true });
    writeFileSync(join(t.home, ".mitsu", "settings.json"), '{"env":{"TOKEN":"secret"}}');
    mkdirSync(join(t.cwd, ".mitsu"), { recursive: true });
    symlinkSync(join(t.home, ".mitsu", "settings.json"), join(t.cwd, ".mitsu", "settings.json"));
    await applyPermissionUpdates(
      [
        {
          type: "addRules",
          rules: [{ toolName: "Bash" }],
          behavior: "allow",
          destination: "projectSettings",
        },
      ],
      t,
    );
    expect(readFileSync(join(t.cwd, ".mitsu", "settings.json"), "utf8")).toBe('{"env":{"TOKEN":"secret"}}');
    expect(lstatSync(join(t.cwd, ".mitsu", "settings.json")).isSymbolicLink()).toBe(true);
  });
});
