import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";

/** What `listDir` reports about a folder it cannot read (the shape of skill and agent-file warnings). */
export interface ListDirWarning {
  path: string;
  field: string;
  message: string;
  skipped: boolean;
}

/**
 * The entries of a folder sorted by name (so discovery is deterministic); a missing folder is simply empty, any
 * other failure is one warning and no entries. Shared by skill and agent-file discovery.
 */
export async function listDir(dir: string, warnings: ListDirWarning[]): Promise<Dirent[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      warnings.push({
        path: dir,
        field: "file",
        message: `cannot be read (${code ?? String(cause)})`,
        skipped: true,
      });
    }
    return [];
  }
}
