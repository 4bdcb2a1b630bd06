import { realpath, stat } from "node:fs/promises";
import { openRegularFile } from "../fs/open-regular-file.js";
import { isInside } from "../fs/real-path.js";
import { specialFileKind } from "../fs/special-file-kind.js";

/** What reading one instruction file gave: its text, "missing", or why it was not read. */
export type InstructionRead =
  | { kind: "read"; content: string; realPath: string }
  | { kind: "missing" }
  | { kind: "refused"; reason: string };

export interface ReadInstructionFileOptions {
  /** Real paths of the folders the file may lie in (after symbolic links are resolved); undefined: anywhere. */
  roots: readonly string[] | undefined;
  /** A larger file is not opened. */
  maxBytes: number;
}

/**
 * Reads an instruction file (AGENTS.md, CLAUDE.md, an `@import`) only when it is safe to: its real path lies in
 * one of `roots` (so `@/proc/self/environ` or `@~/.ssh/id_rsa`, or a symbolic link to them, is not read), it is
 * a regular file (a FIFO would block the read for ever, `/dev/tty` would swallow the user's keystrokes), and it
 * is at most `maxBytes`. All of this is checked before the file is opened; the file is then opened without
 * following a link and without blocking, and checked again through the open descriptor, so a file swapped in
 * between is not read either. Never throws.
 */
export async function readInstructionFile(
  path: string,
  options: ReadInstructionFileOptions,
): Promise<InstructionRead> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "refused", reason: (error as Error).message };
  }
  if (options.roots && !options.roots.some((root) => isInside(root, real))) {
    const where = real === path ? "it" : `it resolves to ${real}, which`;
    return {
      kind: "refused",
      reason: `${where} lies outside the project and the user's ~/.mitsu and ~/.claude folders`,
    };
  }
  try {
    const before = await stat(real);
    if (!before.isFile()) return { kind: "refused", reason: `${real} is ${specialFileKind(before)}` };
    if (before.size > options.maxBytes) {
      return { kind: "refused", reason: `${real} is larger than ${options.maxBytes} bytes` };
    }
    const { handle, stats: now } = await openRegularFile(real, { realPath: true });
    try {
      if (now.ino !== before.ino || now.dev !== before.dev) {
        return { kind: "refused", reason: `${real} changed while it was being read` };
      }
      const buffer = Buffer.alloc(Math.min(now.size, options.maxBytes));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { kind: "read", content: buffer.subarray(0, filled).toString("utf8"), realPath: real };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing" };
    return { kind: "refused", reason: (error as Error).message };
  }
}
