import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/** Where a repository keeps its files: the work tree's root, its git folder and the folder shared by worktrees. */
export interface GitDirs {
  root: string;
  gitDir: string;
  commonDir: string;
}

/**
 * The repository around `cwd`, found as git finds it (the nearest `.git` folder, or a `.git` file's `gitdir:`
 * pointer, as worktrees and submodules have), without running git; undefined outside a repository, and null
 * when a `.git` file cannot be followed.
 */
export async function findGitDirs(cwd: string): Promise<GitDirs | undefined | null> {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, ".git");
    const found = await stat(dotGit).catch(() => undefined);
    if (found) {
      let gitDir = dotGit;
      if (!found.isDirectory()) {
        const pointer = /^gitdir:\s*(.+)$/m.exec(await readFile(dotGit, "utf8").catch(() => ""));
        if (!pointer?.[1]) return null;
        gitDir = resolve(dir, pointer[1].trim());
      }
      const commonDir = await readFile(join(gitDir, "commondir"), "utf8")
        .then((text) => resolve(gitDir, text.trim()))
        .catch(() => gitDir);
      return { root: dir, gitDir, commonDir };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
