import { constants, existsSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Linux names every open descriptor in /proc/self/fd; a path through it resolves from the descriptor itself. */
const FD_PATHS = existsSync("/proc/self/fd");
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * An open folder, held by descriptor so that what is done inside it stays there however its path changes
 * meanwhile: a folder swapped for a symbolic link after it was checked cannot redirect a write (the `openat`
 * idea; Node has no `openat`, so on Linux `entry(name)` goes through `/proc/self/fd/<fd>/<name>`, which the
 * kernel resolves from the descriptor, not from the path). Elsewhere `entry` is the plain path and
 * `currentPath` detects a swap after the fact, so callers still check and undo.
 */
export class PinnedFolder {
  private constructor(
    private readonly handle: FileHandle,
    /** The real path the folder had when it was opened and checked. */
    readonly path: string,
  ) {}

  /**
   * Opens the folder at the real path `path` (no link in it), creating it and its missing parents like
   * `mkdir -p`, but each one through the folder above it, so a link swapped in on the way is refused rather
   * than followed. Throws when a component is not a folder, is a link, or the folder is not at `path`.
   */
  static async open(path: string): Promise<PinnedFolder> {
    let folder: PinnedFolder;
    try {
      folder = await PinnedFolder.openExisting(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || dirname(path) === path) throw await describe(error, path);
      const parent = await PinnedFolder.open(dirname(path));
      try {
        folder = await parent.openChild(basename(path), true);
      } finally {
        await parent.close();
      }
    }
    const where = await folder.currentPath();
    if (where !== path) {
      await folder.close();
      throw new Error(`${path} is not where it was: it resolves to ${where ?? "a removed folder"}`);
    }
    return folder;
  }

  private static async openExisting(path: string): Promise<PinnedFolder> {
    const handle = await open(path, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    return new PinnedFolder(handle, path);
  }

  /** The subfolder `name`, created first when `create` and missing; never through a link. */
  private async openChild(name: string, create: boolean): Promise<PinnedFolder> {
    const entry = this.entry(name);
    if (create) {
      await mkdir(entry).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw await describe(error, join(this.path, name));
      });
    }
    try {
      const handle = await open(entry, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      return new PinnedFolder(handle, join(this.path, name));
    } catch (error) {
      throw await describe(error, join(this.path, name));
    }
  }

  /** A path that names `name` inside this folder, wherever the folder is now (see the class comment). */
  entry(name: string): string {
    if (FD_PATHS) return `/proc/self/fd/${this.handle.fd}/${name}`;
    return join(this.path, name);
  }

  /**
   * Where the folder is now: its real path, or undefined when it was removed (or, where the kernel cannot say,
   * when its old path no longer leads to it).
   */
  async currentPath(): Promise<string | undefined> {
    if (FD_PATHS) {
      const target = await readlink(`/proc/self/fd/${this.handle.fd}`).catch(() => undefined);
      return target === undefined || target.endsWith(" (deleted)") ? undefined : target;
    }
    const [held, there] = await Promise.all([this.handle.stat(), stat(this.path).catch(() => undefined)]);
    if (there === undefined || there.ino !== held.ino || there.dev !== held.dev) return undefined;
    return realpath(this.path).catch(() => undefined);
  }

  stat() {
    return this.handle.stat();
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Errors that say in words what went wrong with a path (a link where a folder should be, say). */
async function describe(error: unknown, path: string): Promise<Error> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "ELOOP" && code !== "ENOTDIR") return error as Error;
  const link = await lstat(path).then(
    (stats) => stats.isSymbolicLink(),
    () => false,
  );
  if (link || code === "ELOOP") {
    return new Error(`${path} is a symbolic link; refusing to follow it while writing`);
  }
  return new Error(`${path} is not a folder`);
}
