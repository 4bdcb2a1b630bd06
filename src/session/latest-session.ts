import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** A header longer than this (a huge system prompt) is not looked at. */
const MAX_HEADER_BYTES = 8 * 1024 * 1024;

export function realFolder(path: string): string {
  try {
    return realpathSync.native(resolve(path));
  } catch {
    return resolve(path);
  }
}

/**
 * The `cwd` of a session file's header (its first line), if it has one; undefined also for a sub-agent's
 * transcript (a header with `parent`), which is not a conversation to continue.
 */
export function headerCwd(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, total);
      if (n === 0) break;
      const end = chunk.subarray(0, n).indexOf(0x0a);
      chunks.push(chunk.subarray(0, end === -1 ? n : end));
      total += n;
      if (end !== -1 || total > MAX_HEADER_BYTES) break;
    }
    const header = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { cwd?: unknown; parent?: unknown };
    if (header.parent !== undefined) return undefined;
    return typeof header.cwd === "string" ? header.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The session file of the folder `cwd` used last (written last: the newest modification time, as `mitsu -r`
 * lists them; a tie goes to the one created later, by its name's timestamp) in any of `dirs`, if any. Only a session whose header names the same folder counts: a folder may hold sessions of
 * another project (the old slugs were not unique: `/x/p-q` and `/x/p/q` shared one).
 */
export function latestSession(dirs: readonly string[], cwd: string): string | undefined {
  const files: Array<{ name: string; path: string; written: number }> = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // no such folder
    }
    for (const name of names) {
      if (!name.endsWith(".jsonl")) continue;
      const path = join(dir, name);
      try {
        files.push({ name, path, written: statSync(path).mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
  }
  files.sort((a, b) => b.written - a.written || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const folder = realFolder(cwd);
  for (const file of files) {
    const owner = headerCwd(file.path);
    if (owner !== undefined && realFolder(owner) === folder) return file.path;
  }
  return undefined;
}
