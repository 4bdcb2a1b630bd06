import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isInside } from "../fs/real-path.js";

/** The most rule files taken from one `rules` folder; the rest are left out with a note. */
export const MAX_RULE_FILES = 200;
/** How deep sub-folders of a `rules` folder are read. */
const MAX_RULE_DEPTH = 8;
/** The most entries looked at in one `rules` folder, all levels together. */
const MAX_ENTRIES = 5_000;

export interface RuleFilesFound {
  /** The `.md` files, sorted by path within each folder, sub-folders after the folder's own files. */
  files: string[];
  /** Every folder read (for change detection: a new file changes its folder's mtime). */
  folders: string[];
  /** What was left out and why, one line each. */
  notes: string[];
}

/**
 * The `.md` files of a `rules` folder (Claude Code's `.claude/rules/`), read recursively. Symbolic links are
 * resolved; with `root`, a link (to a file or a folder) whose target lies outside it is not followed, with a note
 * — a repository's link to `/etc/passwd` or `~/.ssh` is not read — while the user's own folders (`root`
 * undefined) may link anywhere, as Claude Code's shared rules do. A folder reached twice (a link loop) is read
 * once; a link to itself is a note. Never throws.
 */
export async function findRuleFiles(dir: string, root: string | undefined): Promise<RuleFilesFound> {
  const found: RuleFilesFound = { files: [], folders: [], notes: [] };
  const seen = new Set<string>();
  let entries = 0;
  const note = (text: string) => {
    if (!found.notes.includes(text)) found.notes.push(text);
  };
  const walk = async (folder: string, depth: number): Promise<void> => {
    const real = await realpath(folder).catch(() => undefined);
    if (real === undefined || seen.has(real)) return;
    if (root !== undefined && !isInside(root, real)) {
      note(`${folder} resolves to ${real}, outside the project; it was not read.`);
      return;
    }
    seen.add(real);
    found.folders.push(folder);
    const names = await readdir(folder).catch(() => [] as string[]);
    const subfolders: string[] = [];
    for (const name of names.sort()) {
      if (++entries > MAX_ENTRIES) {
        note(`${dir} holds more than ${MAX_ENTRIES} entries; the rest were not read.`);
        return;
      }
      const path = join(folder, name);
      let target: string;
      try {
        target = await realpath(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ELOOP") note(`${path} is a symbolic link loop; it was not read.`);
        continue;
      }
      if (root !== undefined && !isInside(root, target)) {
        note(`${path} links to ${target}, outside the project; it was not read.`);
        continue;
      }
      const kind = await stat(target).catch(() => undefined);
      if (kind?.isDirectory()) subfolders.push(path);
      else if (kind?.isFile() && name.toLowerCase().endsWith(".md")) {
        if (found.files.length >= MAX_RULE_FILES) {
          note(`${dir} holds more than ${MAX_RULE_FILES} rule files; the rest were not read.`);
          return;
        }
        found.files.push(path);
      }
    }
    if (depth >= MAX_RULE_DEPTH) {
      if (subfolders.length > 0) note(`${folder}: folders nested deeper were not read.`);
      return;
    }
    for (const sub of subfolders) await walk(sub, depth + 1);
  };
  await walk(dir, 0);
  return found;
}
