import { constants, existsSync, type Stats } from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";
import { specialFileKind } from "./special-file-kind.js";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const FD_PATHS = existsSync("/proc/self/fd");

/** Thrown by `openRegularFile` for a path that names something other than a regular file. */
export class NotRegularFileError extends Error {
  override name = "NotRegularFileError";
  constructor(
    readonly path: string,
    readonly stats: Stats,
  ) {
    super(`${path} is not a regular file (it is ${specialFileKind(stats)})`);
  }
}

export interface OpenRegularFileOptions {
  /**
   * `path` is a real path (no link in it, as the workspace resolves them): refuse a final link, and where the
   * kernel can say (Linux), refuse a file whose real path is not `path` — a folder on the way swapped for a link
   * between the check and the open. Default false (links are followed).
   */
  realPath?: boolean;
}

/**
 * Opens a file for reading only if it is a regular file, without ever blocking: the open itself is
 * non-blocking (opening a FIFO for reading would otherwise wait for a writer forever, holding one of libuv's
 * few threads), and the type is checked on the open descriptor, so a file swapped for a FIFO or a device
 * after a `stat` is still refused. The caller closes the handle. Errors from `open` (ENOENT, EACCES) pass
 * through; anything else is a `NotRegularFileError` or an Error that says what moved.
 */
export async function openRegularFile(
  path: string,
  options: OpenRegularFileOptions = {},
): Promise<{ handle: FileHandle; stats: Stats }> {
  const flags = constants.O_RDONLY | O_NONBLOCK | (options.realPath ? O_NOFOLLOW : 0);
  let handle: FileHandle;
  try {
    handle = await open(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP" && options.realPath) {
      throw new Error(`${path} became a symbolic link; refusing to follow it`);
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, stats);
    if (options.realPath && FD_PATHS) {
      const real = await readlink(`/proc/self/fd/${handle.fd}`);
      if (real !== path) throw new Error(`${path} moved while it was being opened (it is now ${real})`);
    }
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
