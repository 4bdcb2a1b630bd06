import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../loop/tool.js";
import { Workspace } from "./workspace.js";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-ws-")));
  root = join(base, "project");
  outside = join(base, "outside");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "src", "a.ts"), "a");
  await writeFile(join(outside, "secret.txt"), "secret");
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe("Workspace.resolve", () => {
  it("resolves relative and absolute paths inside the root to real paths", async () => {
    const ws = new Workspace([root]);
    expect(await ws.resolve("src/a.ts")).toBe(join(root, "src", "a.ts"));
    expect(await ws.resolve(join(root, "src", "a.ts"))).toBe(join(root, "src", "a.ts"));
    expect(await ws.resolve(".")).toBe(root);
  });

  it("accepts files and folders that do not exist yet", async () => {
    const ws = new Workspace([root]);
    expect(await ws.resolve("new/deep/file.ts")).toBe(join(root, "new", "deep", "file.ts"));
  });

  it("refuses a .. escape", async () => {
    const ws = new Workspace([root]);
    await expect(ws.resolve("../outside/secret.txt")).rejects.toThrow(ToolError);
    await expect(ws.resolve("src/../../outside/secret.txt")).rejects.toThrow(/outside the workspace/);
  });

  it("refuses an absolute path elsewhere, and names the folders it may use", async () => {
    const ws = new Workspace([root]);
    await expect(ws.resolve("/etc/passwd")).rejects.toThrow(
      /Access denied: \/etc\/passwd .*outside the workspace/,
    );
    await expect(ws.resolve("/etc/passwd")).rejects.toThrow(root);
  });

  it("refuses a symbolic link that points out, to a file or to a folder", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    await symlink(outside, join(root, "linkdir"));
    const ws = new Workspace([root]);
    await expect(ws.resolve("link.txt")).rejects.toThrow(/symbolic link to .*secret\.txt/);
    await expect(ws.resolve("linkdir/secret.txt")).rejects.toThrow(/symbolic link/);
  });

  it("refuses a new file below a symlinked folder that points out", async () => {
    await symlink(outside, join(root, "linkdir"));
    const ws = new Workspace([root]);
    await expect(ws.resolve("linkdir/new/file.txt")).rejects.toThrow(/outside the workspace/);
  });

  it("refuses a dangling symbolic link whose target would be created outside", async () => {
    await symlink(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    const ws = new Workspace([root]);
    await expect(ws.resolve("dangling.txt")).rejects.toThrow(/symbolic link to .*not-yet\.txt/);
  });

  it("accepts a symbolic link that stays inside", async () => {
    await symlink(join(root, "src"), join(root, "alias"));
    const ws = new Workspace([root]);
    expect(await ws.resolve("alias/a.ts")).toBe(join(root, "src", "a.ts"));
  });

  it("accepts additional roots, and a root reached through a symbolic link", async () => {
    await symlink(root, join(base, "project-link"));
    const ws = new Workspace([join(base, "project-link"), outside]);
    expect(await ws.resolve("src/a.ts")).toBe(join(root, "src", "a.ts"));
    expect(await ws.resolve(join(outside, "secret.txt"))).toBe(join(outside, "secret.txt"));
  });

  it("refuses a sibling folder whose name starts with the root's name", async () => {
    await mkdir(join(base, "project-other"));
    const ws = new Workspace([root]);
    await expect(ws.resolve(join(base, "project-other", "x"))).rejects.toThrow(/outside the workspace/);
  });
});

describe("Workspace.display", () => {
  it("shows paths relative to the working folder when inside it", () => {
    const ws = new Workspace([root]);
    expect(ws.display(join(root, "src", "a.ts"))).toBe("src/a.ts");
    expect(ws.display(join(outside, "x"))).toBe(join(outside, "x"));
  });
});
