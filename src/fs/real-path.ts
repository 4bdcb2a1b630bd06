import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Enough hops for any sane chain of symbolic links; more means a loop. */
const MAX_LINK_HOPS = 40;

/**
 * The real path of `path`, symbolic links resolved, even when the path does not exist yet: the nearest
 * existing ancestor is resolved and the missing tail appended. A dangling symbolic link is followed to
 * where it points (writing through it would create its target), so a link to a missing file outside a
 * folder cannot hide where a write would land. `path` must be absolute.
 */
export async function resolveRealPath(path: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new Error(`Too many levels of symbolic links at ${path}`);
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isSymbolicLink()) {
    const target = resolve(dirname(path), await readlink(path));
    return resolveRealPath(target, hops + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await resolveRealPath(parent, hops), basename(path));
}

/** The absolute path `path` names, links not resolved: `~` and `~/…` below `home`, anything else against `base`. */
export function absolutePath(path: string, base: string, home: string): string {
  return path === "~" || path.startsWith("~/") ? resolve(home, path.slice(2)) : resolve(base, path);
}

/** True when `path` is `root` or lies below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix);
}

/**
 * `path` relative to `base` when it lies inside it (`""` for `base` itself), else undefined. A name that
 * merely starts with two dots (`..env`) is inside: only `..` itself, as a whole segment, leads out.
 */
export function relativeInside(base: string, path: string): string | undefined {
  const rel = relative(base, path);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel;
}
