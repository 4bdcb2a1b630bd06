import type { Stats } from "node:fs";
import { ToolError } from "../loop/tool.js";
import { type ToolState, toolStateKey } from "../loop/tool-state.js";

interface ReadRecord {
  mtimeMs: number;
  size: number;
  /** Who last recorded it: a Read (the model saw this content) or a tool's own write (it saw only its change). */
  by: "read" | "write";
}

/**
 * Which files the model has Read in this run, and how they looked then. Write and Edit consult it so the
 * model never overwrites a file it has not seen, nor one that changed on disk (the user, a formatter)
 * since it looked. Keyed by real path.
 */
export class ReadTracker {
  private readonly records = new Map<string, ReadRecord>();

  /** Records that the model has seen `path` as it is now (after a Read, or after its own Write/Edit). */
  record(path: string, stats: Pick<Stats, "mtimeMs" | "size">, by: "read" | "write" = "read"): void {
    this.records.set(path, { mtimeMs: stats.mtimeMs, size: stats.size, by });
  }

  /**
   * True when the newest record of `path` is a Write or Edit of this run rather than a Read: the file then holds
   * changes the model made but has not Read back (several Edits of one turn land one after another).
   */
  changedByTool(path: string): boolean {
    return this.records.get(path)?.by === "write";
  }

  /** The files seen so far with their mtime then (for the "a file you Read changed on disk" reminder). */
  entries(): Array<{ path: string; mtimeMs: number }> {
    return [...this.records].map(([path, record]) => ({ path, mtimeMs: record.mtimeMs }));
  }

  has(path: string): boolean {
    return this.records.has(path);
  }

  /** The records as JSON (`[path, mtimeMs, size, by]` each), for a run that moves to another process. */
  toJSON(): Array<[string, number, number, "read" | "write"]> {
    return [...this.records].map(([path, r]) => [path, r.mtimeMs, r.size, r.by]);
  }

  /**
   * A tracker from `toJSON`'s output, its records added to `into` when given; malformed entries are dropped (the
   * file must then be Read again).
   */
  static fromJSON(data: unknown, into?: ReadTracker): ReadTracker {
    const tracker = into ?? new ReadTracker();
    if (!Array.isArray(data)) return tracker;
    for (const entry of data) {
      if (!Array.isArray(entry)) continue;
      const [path, mtimeMs, size, by] = entry as unknown[];
      if (typeof path !== "string" || typeof mtimeMs !== "number" || typeof size !== "number") continue;
      if (by !== "read" && by !== "write") continue;
      tracker.records.set(path, { mtimeMs, size, by });
    }
    return tracker;
  }

  /** Throws a ToolError unless `path` was Read in this run and has not changed on disk since. */
  assertFresh(path: string, stats: Pick<Stats, "mtimeMs" | "size">, displayPath: string): void {
    const seen = this.records.get(path);
    if (!seen) {
      throw new ToolError(
        `${displayPath} exists but has not been Read in this session. Read it first, then change it (this keeps you from overwriting content you have not seen).`,
      );
    }
    if (seen.mtimeMs !== stats.mtimeMs || seen.size !== stats.size) {
      throw new ToolError(
        `${displayPath} has changed on disk since you last Read it (the user or a tool such as a formatter modified it). Read it again before changing it.`,
      );
    }
  }
}

/** The tracker's slot in `ToolContext.state`: it lives as long as the conversation's tool state. */
export const READ_TRACKER = toolStateKey("read-tracker", () => new ReadTracker(), {
  save: (tracker) => tracker.toJSON(),
  load: (data, current) => ReadTracker.fromJSON(data, current),
});

/** The conversation's tracker, created on first use. */
export function getReadTracker(state: ToolState): ReadTracker {
  return state.get(READ_TRACKER);
}
