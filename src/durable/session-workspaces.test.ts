import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionWorkspaces } from "./session-workspaces.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fleet() {
  const root = mkdtempSync(join(tmpdir(), "mitsu-workspaces-"));
  dirs.push(root);
  mkdirSync(join(root, "fleet", "s1"), { recursive: true });
  mkdirSync(join(root, "outside"));
  return root;
}

describe("sessionWorkspaces", () => {
  it("puts a session in <root>/<id>, or in a folder inside the root that its first prompt names", () => {
    const root = fleet();
    const workspace = sessionWorkspaces(join(root, "fleet"));
    expect(workspace("s1", undefined)).toMatch(/fleet\/s1$/);
    expect(workspace("s2", "s1")).toMatch(/fleet\/s1$/);
    expect(workspace("s3", undefined)).toMatch(/fleet\/s3$/);
  });

  it("refuses a folder outside the root: by .., by an absolute path, by a symbolic link, or the root itself", () => {
    const root = fleet();
    symlinkSync(join(root, "outside"), join(root, "fleet", "escape"));
    const workspace = sessionWorkspaces(join(root, "fleet"));
    expect(() => workspace("s", "../outside")).toThrow(
      "is not a folder inside this worker's workspaces folder",
    );
    expect(() => workspace("s", join(root, "outside"))).toThrow("is not a folder inside");
    expect(() => workspace("s", "escape")).toThrow("is not a folder inside");
    expect(() => workspace("s", ".")).toThrow("is not a folder inside");
  });

  it("refuses a workspaces folder that does not exist", () => {
    expect(() => sessionWorkspaces(join(tmpdir(), "mitsu-no-such-folder-9"))).toThrow("does not exist");
  });
});
