import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** How much of a file is read to find its first line (a header holds the system prompt: tens of KiB). */
const HEAD_BYTES = 1024 * 1024;

/**
 * Throws, naming the file, unless `path` is a regular file whose first line is a mitsu session header. Checked
 * before a session file is locked (a lock file is made beside it) or read whole: `-r /proc/self/environ`,
 * `-r notes.txt` or `-r /dev/zero` must get "not a mitsu session file", not an error about a lock file, a hang or a
 * huge read.
 */
export function checkSessionFile(path: string): void {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (and is then refused as no regular file).
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new Error(`Cannot read session ${path}: ${(error as Error).message}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw notSession(path, "it is not a regular file");
    const head = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, head, 0, HEAD_BYTES, 0);
    const text = head.subarray(0, read).toString("utf8");
    const end = text.indexOf("\n");
    const first = end === -1 ? text : text.slice(0, end);
    if (first.trim() === "") throw notSession(path, "it is empty");
    if (end === -1 && read === HEAD_BYTES) {
      // A header longer than the head: its start must still say what it is.
      if (!/^\{\s*"type"\s*:\s*"session"/.test(first))
        throw notSession(path, "its first line is no session header");
      return;
    }
    let header: unknown;
    try {
      header = JSON.parse(first);
    } catch {
      // A header cut by a kill mid-write is still the start of a session: loadSession says what is wrong.
      if (/^\{\s*"type"\s*:\s*"session"/.test(first)) return;
      throw notSession(path, "its first line is not JSON");
    }
    if (typeof header !== "object" || header === null || (header as { type?: unknown }).type !== "session") {
      throw notSession(path, "its first line is no session header");
    }
  } finally {
    closeSync(fd);
  }
}

function notSession(path: string, why: string): Error {
  return new Error(
    `${path} is not a mitsu session file (${why}); mitsu -r takes a session id or a .jsonl file that mitsu wrote`,
  );
}
