import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";

/** How deep submodules of submodules are followed. */
const MAX_DEPTH = 4;

/** The submodule `.git` paths of a work tree, by the identity of its index (which a sandboxed command cannot change). */
const cache = new Map<string, { key: string; paths: string[] }>();

/**
 * The `.git` of every submodule of the work tree at `root` (and of theirs), present or not: the user's `git
 * status` at the top looks into each populated submodule — a `.git` there (a file, or a folder a command made in
 * place of it or in an empty submodule folder) has its own config, whose `core.fsmonitor` runs on the host. The
 * submodules are the index's gitlinks (mode 160000); none when `root` is not a git work tree or git cannot say.
 */
export function submoduleGitPaths(root: string, depth = 0): string[] {
  if (depth >= MAX_DEPTH || !existsSync(join(root, ".git"))) return [];
  const key = indexKey(root);
  const cached = cache.get(root);
  if (cached && cached.key === key) return cached.paths;
  const paths: string[] = [];
  for (const path of gitlinks(root)) {
    const sub = join(root, path);
    paths.push(join(sub, ".git"), ...submoduleGitPaths(sub, depth + 1));
  }
  cache.set(root, { key, paths });
  return paths;
}

/** The index's size, time and inode: a command cannot change it (it lies in the masked `.git`). */
function indexKey(root: string): string {
  try {
    const s = statSync(join(root, ".git", "index"));
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    // A `.git` file (a submodule, a worktree), or no index yet: asked again each time.
    return `uncached:${Date.now()}:${Math.random()}`;
  }
}

function gitlinks(root: string): string[] {
  let out: string;
  try {
    out = execFileSync("git", ["-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch {
    return [];
  }
  const links: string[] = [];
  for (const entry of out.split("\0")) {
    // `<mode> <object> <stage>\t<path>`
    if (!entry.startsWith("160000 ")) continue;
    const tab = entry.indexOf("\t");
    if (tab > 0) links.push(entry.slice(tab + 1));
  }
  return links;
}
