import { stat } from "node:fs/promises";
import type { ReminderSource } from "./reminder-engine.js";

/** A file the model has Read, with its modification time when it was read. */
export interface TrackedFile {
  path: string;
  mtimeMs: number;
}

/**
 * "A file you Read has changed on disk". `tracked` lists the files Read so far (the tools keep it).
 * Each change (a new mtime, or a deletion) is reported once: the same change is not repeated, a later
 * change to the same file is.
 */
export function changedFilesSource(
  tracked: () => readonly TrackedFile[] | Promise<readonly TrackedFile[]>,
): ReminderSource {
  const reported = new Set<string>();
  return {
    name: "changed-files",
    async collect() {
      const changed: string[] = [];
      const deleted: string[] = [];
      for (const file of await tracked()) {
        let mtimeMs: number;
        try {
          mtimeMs = (await stat(file.path)).mtimeMs;
        } catch {
          mtimeMs = -1;
        }
        if (mtimeMs === file.mtimeMs) continue;
        const key = `${file.path}\0${file.mtimeMs}\0${mtimeMs}`;
        if (reported.has(key)) continue;
        reported.add(key);
        (mtimeMs === -1 ? deleted : changed).push(file.path);
      }
      if (changed.length === 0 && deleted.length === 0) return undefined;
      const lines: string[] = [];
      if (changed.length > 0) {
        lines.push(
          "These files changed on disk after you Read them (by the user, a formatter or another process). Read them again before you edit them, and do not undo those changes unless asked:",
          ...changed.map((p) => `- ${p}`),
        );
      }
      if (deleted.length > 0) {
        lines.push("These files you Read no longer exist:", ...deleted.map((p) => `- ${p}`));
      }
      return lines.join("\n");
    },
  };
}
