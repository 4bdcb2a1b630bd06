import type { Stats } from "node:fs";

/** What a file that is neither a regular file nor a folder is, in words ("a named pipe (FIFO)"). */
export function specialFileKind(stats: Stats): string {
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isDirectory()) return "a directory";
  return "a special file";
}
