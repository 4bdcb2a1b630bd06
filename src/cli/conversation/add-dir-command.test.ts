import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderSet } from "../../fs/folder-set.js";
import { createStyle } from "../render/style.js";
import { addDirCommand } from "./add-dir-command.js";

let root: string;
let folders: FolderSet;
const style = createStyle(false);
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "mitsu-add-dir-")));
  for (const dir of ["ws", "home", "with space"]) mkdirSync(join(root, dir));
  folders = new FolderSet(join(root, "ws"), join(root, "home"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("/add-dir", () => {
  it("adds a quoted path with a space for the session, says so once, and lists it", async () => {
    expect(await addDirCommand(`"../with space"`, folders, style)).toBe(
      `Added ${join(root, "with space")} to the workspace for this session.`,
    );
    expect(await addDirCommand("../with space", folders, style)).toBe(
      `${join(root, "with space")} is already in the workspace.`,
    );
    expect(await addDirCommand("", folders, style)).toContain(
      `Added folders:\n  ${join(root, "with space")}`,
    );
  });

  it("--remember saves the real path to the local settings; the home folder comes with a warning", async () => {
    const out = await addDirCommand("~ --remember", folders, style);
    expect(out).toMatch(/^⚠ .* is your home folder/);
    expect(out).toContain(`Saved to ${join(root, "ws", ".mitsu", "settings.local.json")}.`);
    const saved = JSON.parse(readFileSync(join(root, "ws", ".mitsu", "settings.local.json"), "utf8"));
    expect(saved).toEqual({ permissions: { additionalDirectories: [join(root, "home")] } });
  });

  it("a missing folder adds nothing", async () => {
    expect(await addDirCommand("../nowhere", folders, style)).toMatch(/does not exist; no folder added/);
    expect(folders.list()).toEqual([]);
  });
});
