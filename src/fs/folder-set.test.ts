import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderSet } from "./folder-set.js";

let root: string;
let cwd: string;
let home: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "mitsu-folder-set-")));
  cwd = join(root, "ws");
  home = join(root, "home");
  for (const dir of [cwd, home, join(root, "a"), join(root, "b")]) mkdirSync(dir);
  writeFileSync(join(root, "file.txt"), "x");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("FolderSet", () => {
  it("adds a folder by its real path, taken when it is added", async () => {
    symlinkSync(join(root, "a"), join(root, "link"));
    const set = new FolderSet(cwd, home);
    expect(await set.add("../link")).toEqual({ real: join(root, "a"), added: true });
    // The link now points elsewhere: the set still holds the folder it named when it was added.
    rmSync(join(root, "link"));
    symlinkSync(join(root, "b"), join(root, "link"));
    expect(set.list()).toEqual([join(root, "a")]);
  });

  it("refuses what is missing or not a folder; a folder already covered adds nothing", async () => {
    const set = new FolderSet(cwd, home);
    await expect(set.add("../nowhere")).rejects.toThrow(/does not exist/);
    await expect(set.add("../file.txt")).rejects.toThrow(/is not a folder/);
    mkdirSync(join(cwd, "sub"));
    expect(await set.add("sub")).toMatchObject({ added: false });
    await set.add(join(root, "a"));
    expect(await set.add(join(root, "a"))).toMatchObject({ added: false });
    expect(set.list()).toEqual([join(root, "a")]);
  });

  it("warns when the folder is / or the home folder itself", async () => {
    const set = new FolderSet(cwd, home);
    expect((await set.add("/")).warning).toMatch(/whole filesystem/);
    expect((await new FolderSet(cwd, home).add("~")).warning).toMatch(/home folder/);
    expect((await new FolderSet(cwd, home).add("~/..")).warning).toBeUndefined();
  });

  it("removes a folder by the name it was added with or by its real path, also after it was moved", async () => {
    symlinkSync(join(root, "a"), join(root, "link"));
    const set = new FolderSet(cwd, home);
    await set.add("../link");
    await set.add("../b");
    expect(await set.remove(join(root, "link"))).toEqual([join(root, "a")]);
    renameSync(join(root, "b"), join(root, "b2"));
    expect(await set.remove("../b")).toEqual([join(root, "b")]);
    expect(set.list()).toEqual([]);
  });

  it("keeps a start-up folder that does not exist yet by its absolute path", async () => {
    const set = new FolderSet(cwd, home);
    await set.addAtStart("../later");
    expect(set.entries()).toEqual([
      { path: join(root, "later"), real: join(root, "later"), resolved: false },
    ]);
  });
});
