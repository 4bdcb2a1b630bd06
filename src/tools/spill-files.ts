import { randomBytes } from "node:crypto";
import { createWriteStream, lstatSync, mkdirSync, rmSync, type WriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { removeOnExit } from "../fs/remove-on-exit.js";

/** Default total size of the saved outputs of one tool set, in bytes: older ones are deleted past it. */
export const SPILL_TOTAL_BYTES = 256 * 1024 * 1024;

/**
 * The files where Bash saves whole outputs that did not fit in a result, in one private folder (mode 0700)
 * made on first use and deleted, with everything in it, when the process exits (a folder that already existed
 * is kept; only the files written to it are deleted). Their total size is kept under
 * `maxTotalBytes` by deleting the oldest finished files first (a result that named one then points to a file
 * that is gone, which Read reports plainly).
 */
export class SpillFiles {
  private sequence = 0;
  private created = false;
  private ownFolder = false;
  /** Finished files, oldest first, with their sizes. */
  private readonly finished: Array<{ path: string; bytes: number }> = [];

  constructor(
    readonly folder: string,
    private readonly maxTotalBytes = SPILL_TOTAL_BYTES,
  ) {}

  /** A new, empty file (created exclusively, mode 0600) and a stream that writes it. Throws if it cannot be made. */
  create(): { path: string; stream: WriteStream } {
    if (!this.created) {
      mkdirSync(dirname(this.folder), { recursive: true });
      try {
        mkdirSync(this.folder, { mode: 0o700 });
        // Made here, so it is ours to delete whole when the process exits.
        removeOnExit(this.folder);
        this.ownFolder = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        // Found, not made: use it only if it is a real folder of this user (not a link someone prepared), and
        // delete only the files written to it.
        const found = lstatSync(this.folder);
        if (!found.isDirectory() || (process.getuid && found.uid !== process.getuid())) {
          throw new Error(`${this.folder} exists and is not a folder of this user`);
        }
      }
      this.created = true;
    }
    this.sequence++;
    const path = join(
      this.folder,
      `bash-${Date.now()}-${this.sequence}-${randomBytes(4).toString("hex")}.log`,
    );
    // A high-water mark of 1 MiB: the writer is told to wait (and pauses the command) past that much in memory.
    const stream = createWriteStream(path, { mode: 0o600, flags: "wx", highWaterMark: 1024 * 1024 });
    if (!this.ownFolder) removeOnExit(path);
    return { path, stream };
  }

  /** Records a finished file's size, then deletes the oldest other files while the total is over budget. */
  finish(path: string, bytes: number): void {
    this.finished.push({ path, bytes });
    let total = this.finished.reduce((sum, file) => sum + file.bytes, 0);
    while (total > this.maxTotalBytes && this.finished.length > 1) {
      const oldest = this.finished.shift();
      if (!oldest) break;
      rmSync(oldest.path, { force: true });
      total -= oldest.bytes;
    }
  }
}
