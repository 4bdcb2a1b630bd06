import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotRegularFileError, openRegularFile } from "./open-regular-file.js";

let base: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-open-")));
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe("openRegularFile", () => {
  it("opens a regular file and gives its stats", async () => {
    await writeFile(join(base, "a.txt"), "hello");
    const { handle, stats } = await openRegularFile(join(base, "a.txt"), { realPath: true });
    try {
      expect(stats.size).toBe(5);
      expect(await handle.readFile("utf8")).toBe("hello");
    } finally {
      await handle.close();
    }
  });

  it("refuses a FIFO at once, without waiting for a writer", async () => {
    execFileSync("mkfifo", [join(base, "pipe")]);
    const error = await openRegularFile(join(base, "pipe")).catch((e: Error) => e);
    expect(error).toBeInstanceOf(NotRegularFileError);
    expect((error as Error).message).toContain("it is a named pipe (FIFO)");
  });

  it("with realPath, refuses a final link and a folder on the way that is a link", async () => {
    await mkdir(join(base, "real"));
    await writeFile(join(base, "real", "f.txt"), "x");
    await symlink(join(base, "real", "f.txt"), join(base, "link.txt"));
    await symlink(join(base, "real"), join(base, "dir-link"));
    await expect(openRegularFile(join(base, "link.txt"), { realPath: true })).rejects.toThrow(
      /became a symbolic link/,
    );
    if (process.platform === "linux") {
      await expect(openRegularFile(join(base, "dir-link", "f.txt"), { realPath: true })).rejects.toThrow(
        /moved while it was being opened/,
      );
    }
    // Without realPath, links are followed as usual.
    const { handle } = await openRegularFile(join(base, "link.txt"));
    await handle.close();
  });
});
