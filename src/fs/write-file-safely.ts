import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { access, type FileHandle, link, lstat, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { PinnedFolder } from "./pinned-folder.js";
import { isInside } from "./real-path.js";
import { removeOnExit } from "./remove-on-exit.js";
import { specialFileKind } from "./special-file-kind.js";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

export interface WriteFileSafelyOptions {
  /** Real paths of the folders the file must stay inside (the workspace roots). */
  roots: readonly string[];
  /**
   * What the caller last saw at `path` (checked just before writing): `"absent"`, or the file's identity and
   * mtime/size. A file that differs is left alone and the write fails, so a change made meanwhile by someone
   * else is never silently overwritten.
   */
  expect?: "absent" | Pick<Stats, "ino" | "dev" | "mtimeMs" | "size">;
}

/** How `writeFileSafely` wrote. */
export interface SafeWriteResult {
  /** The file did not exist before. */
  created: boolean;
  /** Written into the existing file (its other hard links see the change) rather than replaced. */
  inPlace: boolean;
  /** The file as written, for "has it changed since" checks. */
  stats: Stats;
}

/**
 * Writes `content` to the real path `path`, which must stay inside one of `options.roots` throughout.
 *
 * - The folder is opened once and every step goes through it (see `PinnedFolder`): a folder on the way swapped
 *   for a link to elsewhere is refused, never followed. After the write the folder's real path is checked again;
 *   if it has moved out of the roots the write is undone (a created file removed, a replaced one restored) and
 *   an error says so.
 * - A file that exists is replaced atomically (a temporary file created exclusively, without following links,
 *   then renamed over it) keeping its owner and mode; readers see the old file or the new one. It is written in
 *   place instead when it has other hard links (replacing it would split them), when its owner cannot be kept,
 *   or when its folder is not writable but the file is.
 * - Refused: anything that is not a regular file (a folder, a FIFO, a device, a socket, a link that appeared);
 *   a file the user cannot write (by its mode bits when running as root, who could write anything; by
 *   `access(W_OK)` otherwise); a new file in a folder the user cannot write.
 * - No temporary file is left behind: it is removed on failure, and on exit if the process dies mid-write.
 *
 * Throws an Error whose message says what went wrong, in words meant for the model ("it is read-only …").
 */
export async function writeFileSafely(
  path: string,
  content: string | Uint8Array,
  options: WriteFileSafelyOptions,
): Promise<SafeWriteResult> {
  const parent = dirname(path);
  if (parent === path || !options.roots.some((root) => isInside(root, parent))) {
    throw new Error(`${path} is outside the workspace`);
  }
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const folder = await PinnedFolder.open(parent);
  try {
    const name = basename(path);
    const existing = await lstat(folder.entry(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (options.expect !== undefined) assertAsExpected(existing, options.expect);
    if (existing) await assertWritableFile(existing, folder.entry(name));
    const folderStats = await folder.stat();
    const folderWritable = await isWritable(folderStats, folder.entry("."));
    if (!existing && !folderWritable) {
      throw new Error(`its folder ${parent} is read-only (mode ${modeOf(folderStats)})`);
    }
    let written: Written | undefined;
    if (!existing || (existing.nlink === 1 && folderWritable)) {
      written = await replaceFile(folder, name, bytes, existing);
    }
    written ??= await writeInPlace(folder, name, bytes, existing as Stats);
    const where = await folder.currentPath();
    if (where === undefined || !options.roots.some((root) => isInside(root, where))) {
      await written.undo();
      throw new Error(
        `its folder moved to ${where ?? "an unknown place"} (outside the workspace) during the write; the write was undone`,
      );
    }
    await written.commit();
    return { created: !existing, inPlace: written.inPlace, stats: written.stats };
  } finally {
    await folder.close();
  }
}

/** A write done but not yet confirmed: `commit` keeps it, `undo` puts the previous state back. */
interface Written {
  inPlace: boolean;
  stats: Stats;
  commit: () => Promise<void>;
  undo: () => Promise<void>;
}

function assertAsExpected(
  existing: Stats | undefined,
  expected: NonNullable<WriteFileSafelyOptions["expect"]>,
): void {
  if (expected === "absent") {
    if (existing) throw new Error("it was created by someone else while this call ran; nothing was written");
    return;
  }
  if (!existing) throw new Error("it was removed while this call ran; nothing was written");
  const same =
    existing.ino === expected.ino &&
    existing.dev === expected.dev &&
    existing.mtimeMs === expected.mtimeMs &&
    existing.size === expected.size;
  if (!same) throw new Error("it changed on disk while this call ran; nothing was written");
}

async function assertWritableFile(existing: Stats, target: string): Promise<void> {
  if (existing.isSymbolicLink()) throw new Error("it became a symbolic link; refusing to write through it");
  if (existing.isDirectory()) throw new Error("it is a directory");
  if (!existing.isFile()) throw new Error(`it is not a regular file (it is ${specialFileKind(existing)})`);
  if (!(await isWritable(existing, target))) {
    throw new Error(
      `it is read-only (mode ${modeOf(existing)}): the user has not made it writable. If it is meant to change, ask the user, or change its mode first (chmod u+w)`,
    );
  }
}

/**
 * Whether the user may write the file or folder `stats` describes: root may write anything, so for root the
 * mode bits decide (a file with no write bit is meant to stay as it is); others ask the kernel.
 */
async function isWritable(stats: Stats, path: string): Promise<boolean> {
  if (process.getuid?.() === 0) return (stats.mode & 0o222) !== 0;
  return access(path, constants.W_OK).then(
    () => true,
    () => false,
  );
}

/**
 * Replaces the file by renaming a complete temporary copy over it, keeping owner and mode. Returns undefined,
 * having changed nothing, when the temporary file cannot be made right (the folder refuses it, or the owner
 * cannot be kept) and an existing file can be written in place instead.
 */
async function replaceFile(
  folder: PinnedFolder,
  name: string,
  bytes: Uint8Array,
  existing: Stats | undefined,
): Promise<Written | undefined> {
  const temporaryName = siblingName(name, "tmp");
  const forgetTemporary = removeOnExit(join(folder.path, temporaryName));
  try {
    return await replaceThrough(folder, name, temporaryName, bytes, existing);
  } finally {
    // By now the temporary file was renamed into place or removed.
    forgetTemporary();
  }
}

async function replaceThrough(
  folder: PinnedFolder,
  name: string,
  temporaryName: string,
  bytes: Uint8Array,
  existing: Stats | undefined,
): Promise<Written | undefined> {
  const temporary = folder.entry(temporaryName);
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  let handle: FileHandle | undefined;
  let stats: Stats;
  try {
    try {
      handle = await open(
        temporary,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
        mode,
      );
    } catch (error) {
      if (existing && (error as NodeJS.ErrnoException).code === "EACCES") return undefined;
      throw error;
    }
    await writeAll(handle, bytes);
    if (existing) {
      if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) {
        const kept = await handle.chown(existing.uid, existing.gid).then(
          () => true,
          () => false,
        );
        if (!kept) {
          await handle.close();
          handle = undefined;
          await unlink(temporary);
          return undefined;
        }
      }
      // After chown (which clears set-id bits), and exactly: the mode given to open was filtered by the umask.
      await handle.chmod(mode);
    }
    stats = await handle.stat();
    await handle.close();
    handle = undefined;
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw error;
  }
  const target = folder.entry(name);
  // A second name for the file being replaced, so that the replacement can be undone.
  const backupName = siblingName(name, "old");
  const forgetBackup = removeOnExit(join(folder.path, backupName));
  const backup = existing
    ? await link(target, folder.entry(backupName)).then(
        () => folder.entry(backupName),
        () => undefined,
      )
    : undefined;
  const dropBackup = async () => {
    if (backup) await unlink(backup).catch(() => {});
    forgetBackup();
  };
  try {
    if (existing) await rename(temporary, target);
    else await createFrom(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    await dropBackup();
    throw error;
  }
  return {
    inPlace: false,
    stats,
    commit: dropBackup,
    undo: async () => {
      if (backup) await rename(backup, target).catch(() => {});
      else if (!existing) await unlinkIfSame(target, stats);
      await dropBackup();
    },
  };
}

/**
 * Moves the finished temporary file to `target`, which must not exist: a hard link fails rather than replace
 * a file that appeared meanwhile (a rename would clobber it). Where the filesystem has no hard links, a rename
 * after one more look.
 */
async function createFrom(temporary: string, target: string): Promise<void> {
  try {
    await link(temporary, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      throw new Error("it was created by someone else while this call ran; nothing was written");
    }
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    if (
      await lstat(target).then(
        () => true,
        () => false,
      )
    ) {
      throw new Error("it was created by someone else while this call ran; nothing was written");
    }
    await rename(temporary, target);
    return;
  }
  await unlink(temporary);
}

/** Overwrites the existing file itself (same inode: hard links, owner and mode all stay). */
async function writeInPlace(
  folder: PinnedFolder,
  name: string,
  bytes: Uint8Array,
  existing: Stats,
): Promise<Written> {
  const previous = await rewrite(folder.entry(name), existing, bytes, true);
  const stats = await lstat(folder.entry(name));
  return {
    inPlace: true,
    stats,
    commit: async () => {},
    undo: async () => {
      await rewrite(folder.entry(name), stats, previous ?? new Uint8Array(), false).catch(() => {});
    },
  };
}

/** Writes `bytes` over the file that `expected` describes, returning what it held before when asked. */
async function rewrite(
  path: string,
  expected: Stats,
  bytes: Uint8Array,
  keepPrevious: boolean,
): Promise<Uint8Array | undefined> {
  const handle = await open(path, constants.O_RDWR | O_NOFOLLOW | O_NONBLOCK);
  try {
    const now = await handle.stat();
    if (!now.isFile() || now.ino !== expected.ino || now.dev !== expected.dev) {
      throw new Error("it was replaced by another file while being written; nothing was written");
    }
    const previous = keepPrevious ? await handle.readFile() : undefined;
    await writeAll(handle, bytes);
    await handle.truncate(bytes.length);
    return previous;
  } finally {
    await handle.close();
  }
}

/** Writes all of `bytes` from offset 0, whatever the handle's position (a partial write is continued). */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
    offset += bytesWritten;
  }
}

/**
 * A hidden name beside `name` for a temporary or backup file: unique (process id and random bytes) and short
 * enough for any filesystem whatever the length of `name` (names are at most 255 bytes).
 */
function siblingName(name: string, kind: "tmp" | "old"): string {
  const stem = Buffer.from(name)
    .subarray(0, 100)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
  return `.${stem}.${process.pid}-${randomBytes(6).toString("hex")}.mitsu-${kind}`;
}

async function unlinkIfSame(path: string, stats: Stats): Promise<void> {
  const now = await lstat(path).catch(() => undefined);
  if (now && now.ino === stats.ino && now.dev === stats.dev) await unlink(path).catch(() => {});
}

function modeOf(stats: Stats): string {
  return `0${(stats.mode & 0o7777).toString(8)}`;
}
