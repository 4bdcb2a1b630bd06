import { execFileSync } from "node:child_process";
import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PinnedFolder } from "./pinned-folder.js";
import { writeFileSafely } from "./write-file-safely.js";

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-safe-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(base, { recursive: true, force: true });
});

const roots = () => ({ roots: [root] });

describe("writeFileSafely", () => {
  it("creates a file and its folders, and reports it created", async () => {
    const result = await writeFileSafely(join(root, "a", "b", "c.txt"), "hi", roots());
    expect(result).toMatchObject({ created: true, inPlace: false });
    expect(await readFile(join(root, "a", "b", "c.txt"), "utf8")).toBe("hi");
  });

  it("replaces a file atomically (a new inode), keeping its mode, and leaves no temporary file", async () => {
    const path = join(root, "run.sh");
    await writeFile(path, "old", { mode: 0o750 });
    const before = await stat(path);
    const result = await writeFileSafely(path, "new", roots());
    expect(result).toMatchObject({ created: false, inPlace: false });
    const after = await stat(path);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o7777).toBe(0o750);
    expect(await readdir(root)).toEqual(["run.sh"]);
  });

  it("writes in place when the file has another hard link", async () => {
    const path = join(root, "a.txt");
    await writeFile(path, "a much longer old content");
    await link(path, join(root, "b.txt"));
    const result = await writeFileSafely(path, "short", roots());
    expect(result).toMatchObject({ inPlace: true });
    expect(await readFile(join(root, "b.txt"), "utf8")).toBe("short");
  });

  it("refuses paths outside the roots, and folders that are links to outside", async () => {
    await expect(writeFileSafely(join(outside, "x"), "x", roots())).rejects.toThrow(/outside the workspace/);
    await symlink(outside, join(root, "out"));
    // A caller that skipped resolving links: the folder is opened without following the link.
    await expect(writeFileSafely(join(root, "out", "x"), "x", roots())).rejects.toThrow(
      /symbolic link|not where it was/,
    );
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses special files and read-only files", async () => {
    execFileSync("mkfifo", [join(root, "pipe")]);
    await expect(writeFileSafely(join(root, "pipe"), "x", roots())).rejects.toThrow(
      /it is a named pipe \(FIFO\)/,
    );
    await writeFile(join(root, "ro.txt"), "keep", { mode: 0o444 });
    await expect(writeFileSafely(join(root, "ro.txt"), "x", roots())).rejects.toThrow(
      /read-only \(mode 0444\)/,
    );
    expect(await readFile(join(root, "ro.txt"), "utf8")).toBe("keep");
  });

  it("with expect, refuses a file that appeared, changed or went since the caller looked", async () => {
    const path = join(root, "f.txt");
    await writeFile(path, "theirs");
    await expect(writeFileSafely(path, "mine", { ...roots(), expect: "absent" })).rejects.toThrow(
      /created by someone else/,
    );
    const seen = await stat(path);
    await writeFile(path, "theirs, changed");
    await expect(writeFileSafely(path, "mine", { ...roots(), expect: seen })).rejects.toThrow(
      /changed on disk/,
    );
    await rm(path);
    await expect(writeFileSafely(path, "mine", { ...roots(), expect: seen })).rejects.toThrow(/was removed/);
  });

  it("undoes a creation when its folder moved out of the roots during the write", async () => {
    const real = PinnedFolder.prototype.currentPath;
    let calls = 0;
    vi.spyOn(PinnedFolder.prototype, "currentPath").mockImplementation(async function (this: PinnedFolder) {
      // The first look is when the folder is opened; the second, after the write, finds it moved out.
      return ++calls === 1 ? real.call(this) : outside;
    });
    await expect(writeFileSafely(join(root, "new.txt"), "x", roots())).rejects.toThrow(
      /moved to .*outside.* during the write; the write was undone/,
    );
    expect(await readdir(root)).toEqual([]);
  });

  it("restores a replaced file when its folder moved out of the roots during the write", async () => {
    const path = join(root, "keep.txt");
    await writeFile(path, "previous");
    const real = PinnedFolder.prototype.currentPath;
    let calls = 0;
    vi.spyOn(PinnedFolder.prototype, "currentPath").mockImplementation(async function (this: PinnedFolder) {
      return ++calls === 1 ? real.call(this) : outside;
    });
    await expect(writeFileSafely(path, "next", roots())).rejects.toThrow(/the write was undone/);
    expect(await readFile(path, "utf8")).toBe("previous");
    expect(await readdir(root)).toEqual(["keep.txt"]);
  });
});
