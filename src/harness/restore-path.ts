import { closeSync, constants, lstatSync, openSync, realpathSync, unlinkSync, writeSync } from "node:fs";
import { isAbsolute, normalize, relative, sep } from "node:path";

/**
 * Why `/rewind` must not write or delete `path`, or undefined: the path must be absolute and lie inside one of
 * the workspace `roots` of the session now running (its folder and added folders), and no part of it below the
 * root may be a symbolic link — every folder on the way a real folder, the file itself (where it exists) a
 * regular file. A checkpoint index names any path it likes (a session file from elsewhere, a hand edit), and a
 * link planted since the change would carry the write out of the workspace.
 */
export function whyNotRestorable(path: string, roots: readonly string[]): string | undefined {
  if (!isAbsolute(path) || normalize(path) !== path) return "not a plain absolute path";
  const below = belowRoot(path, roots);
  if (below === undefined) return "outside the workspace";
  let current = below.root;
  const parts = below.rest.split(sep);
  for (const [i, part] of parts.entries()) {
    current = current.endsWith(sep) ? current + part : current + sep + part;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(current);
    } catch {
      // Missing from here down: the write creates the file only (no folder is made), the delete has nothing to do.
      return i === parts.length - 1 ? undefined : `its folder ${current} no longer exists`;
    }
    if (stat.isSymbolicLink()) return `${current} is a symbolic link`;
    const last = i === parts.length - 1;
    if (!last && !stat.isDirectory()) return `${current} is not a folder`;
    if (last && !stat.isFile()) return "not a regular file";
  }
  return undefined;
}

/** The root `path` lies below (as given, or its real path) and the rest of the path; undefined when none. */
function belowRoot(path: string, roots: readonly string[]): { root: string; rest: string } | undefined {
  for (const given of roots) {
    for (const root of new Set([given, real(given)])) {
      const rest = relative(root, path);
      if (rest !== "" && !rest.startsWith("..") && !isAbsolute(rest)) return { root, rest };
    }
  }
  return undefined;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Writes `content` to `path` without following a link there (O_NOFOLLOW), creating it only if absent. */
export function writeNoFollow(path: string, content: Uint8Array): void {
  const { O_WRONLY, O_TRUNC, O_CREAT, O_NOFOLLOW } = constants;
  const fd = openSync(path, O_WRONLY | O_TRUNC | O_CREAT | O_NOFOLLOW, 0o644);
  try {
    let offset = 0;
    while (offset < content.length) offset += writeSync(fd, content, offset);
  } finally {
    closeSync(fd);
  }
}

/** Deletes `path` if it is a regular file (never a link's target: unlink removes the entry itself). */
export function deleteRegularFile(path: string): void {
  try {
    if (!lstatSync(path).isFile()) return;
  } catch {
    return;
  }
  unlinkSync(path);
}
