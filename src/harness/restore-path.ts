import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, join, normalize, relative, sep } from "node:path";

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
  const steps = stepsBelow(below);
  for (const [i, current] of steps.entries()) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(current);
    } catch {
      // Missing from here down: the write makes the folders and the file (`writeNoFollow`), the delete has
      // nothing to do.
      return undefined;
    }
    if (stat.isSymbolicLink()) return `${current} is a symbolic link`;
    const last = i === steps.length - 1;
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

/** Each path on the way from the root down to the file: `root/a`, `root/a/b`, …, the file's own path last. */
function stepsBelow(below: { root: string; rest: string }): string[] {
  let current = below.root;
  return below.rest.split(sep).map((part) => {
    current = current.endsWith(sep) ? current + part : current + sep + part;
    return current;
  });
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The root `path` lies below, and where `path` must really be for a restore: its workspace root with links
 * resolved, and the rest of the path as it is (`whyNotRestorable` found no link below the root). Throws outside
 * every root.
 */
function placeOf(
  path: string,
  roots: readonly string[],
): { below: { root: string; rest: string }; expected: string } {
  const below = belowRoot(path, roots);
  if (below === undefined) throw new Error(`${path} is outside the workspace`);
  return { below, expected: join(real(below.root), below.rest) };
}

/** The path the open file `fd` really has (Linux: /proc/self/fd), or undefined where that cannot be read. */
function openedPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Writes `content` to `path` — which must lie inside `roots` — following no link anywhere on the way. O_NOFOLLOW
 * guards the last part only, so the file is opened without truncating it, its real path (the kernel's, from the
 * open descriptor) compared with the one below the root, and only then truncated and written: a folder on the
 * way swapped for a link after `whyNotRestorable` looked (a background command of the model's can do that) makes
 * the write fail instead of landing outside. A file this call created out there is removed again.
 */
export function writeNoFollow(
  path: string,
  content: Uint8Array,
  roots: readonly string[],
  mode?: number,
  attempt = 0,
): void {
  const { below, expected } = placeOf(path, roots);
  // O_NONBLOCK: a FIFO swapped in does not hang the restore (its open fails); a regular file ignores the flag.
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
  let existed = true;
  try {
    lstatSync(path);
  } catch {
    existed = false;
    makeFolders(below);
  }
  // A file made again gets its mode from the checkpoint (a 0600 `.env` is not made readable by all), else 0644.
  const fd = openSync(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | (existed ? 0 : O_CREAT | O_EXCL), 0o600);
  let relink: number | undefined;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
    const actual = openedPath(fd) ?? realpathSync(path);
    if (actual !== expected) {
      if (!existed) unlinkSync(actual);
      throw new Error(`${path} leads to ${actual}: a folder on the way is a link`);
    }
    // A hard link (`ln ~/.bashrc notes.txt`) shares its content with a file elsewhere, outside the workspace or
    // in .git: writing in place would change that one too. The entry is replaced by a file of its own instead.
    if (stat.nlink > 1) {
      if (!existed || attempt > 2) throw new Error(`${path} is linked to another file (a hard link)`);
      relink = mode ?? stat.mode & 0o777;
      return;
    }
    if (!existed) fchmodSync(fd, mode ?? 0o644);
    ftruncateSync(fd, 0);
    let offset = 0;
    while (offset < content.length) offset += writeSync(fd, content, offset);
  } finally {
    closeSync(fd);
    if (relink !== undefined) {
      unlinkSync(path);
      writeNoFollow(path, content, roots, relink, attempt + 1);
    }
  }
}

/**
 * The folders on the way to the file below its root that are missing (a model's `rm -rf src` after an edit), made one
 * at a time: each that exists must be a real folder. A link swapped in on the way afterwards is caught by the
 * write's check of where the file really opened.
 */
function makeFolders(below: { root: string; rest: string }): void {
  for (const current of stepsBelow(below).slice(0, -1)) {
    try {
      mkdirSync(current, 0o755);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = lstatSync(current);
      if (stat.isSymbolicLink()) throw new Error(`${current} is a symbolic link`);
      if (!stat.isDirectory()) throw new Error(`${current} is not a folder`);
    }
  }
}

/**
 * Deletes `path` if it is a regular file inside `roots` (never a link's target: unlink removes the entry itself),
 * and only while its folder, links resolved, is still the folder below the root.
 */
export function deleteRegularFile(path: string, roots: readonly string[]): void {
  const { expected } = placeOf(path, roots);
  try {
    if (!lstatSync(path).isFile()) return;
  } catch {
    return;
  }
  if (real(dirname(path)) !== dirname(expected)) {
    throw new Error(`${path} leads outside the workspace: a folder on the way is a link`);
  }
  unlinkSync(path);
}
