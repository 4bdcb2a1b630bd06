import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { editPermissions } from "./edit-permissions.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function settingsFile(content?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-edit-permissions-"));
  dirs.push(dir);
  const file = join(dir, ".mitsu", "settings.local.json");
  if (content !== undefined) {
    mkdirSync(join(dir, ".mitsu"));
    writeFileSync(file, content);
  }
  return file;
}

const addAllow = (rule: string) => (permissions: Record<string, unknown>) => {
  const allow = Array.isArray(permissions.allow) ? (permissions.allow as unknown[]) : [];
  allow.push(rule);
  permissions.allow = allow;
};

describe("editPermissions", () => {
  it("edits of one file at once are made in turn: none is lost, the other keys and the file's mode are kept", async () => {
    const file = settingsFile(JSON.stringify({ model: "m", permissions: { deny: ["Bash(rm:*)"] } }));
    chmodSync(file, 0o600);
    const rules = Array.from({ length: 20 }, (_, i) => `Bash(task${i}:*)`);
    await Promise.all(rules.map((rule) => editPermissions(file, "not saved", addAllow(rule))));
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved.model).toBe("m");
    expect(saved.permissions.deny).toEqual(["Bash(rm:*)"]);
    expect([...saved.permissions.allow].sort()).toEqual([...rules].sort());
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a file that is not a JSON object is left as it is, and a failed edit does not hold up the next", async () => {
    const file = settingsFile("[1]");
    const first = editPermissions(file, "the rules were not saved", addAllow("Read"));
    const second = editPermissions(file, "the rules were not saved", addAllow("Grep"));
    await expect(first).rejects.toThrow(/is not a JSON object; the rules were not saved/);
    await expect(second).rejects.toThrow(/is not a JSON object/);
    expect(readFileSync(file, "utf8")).toBe("[1]");
    writeFileSync(file, "{}");
    await editPermissions(file, "not saved", addAllow("Glob"));
    expect(JSON.parse(readFileSync(file, "utf8")).permissions.allow).toEqual(["Glob"]);
  });

  it("makes the file and its folder when missing", async () => {
    const file = settingsFile();
    await editPermissions(file, "not saved", addAllow("Read"));
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ permissions: { allow: ["Read"] } });
  });
});
