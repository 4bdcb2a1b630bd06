import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Marks of the tool calls that started, kept where every worker sees them (a folder on the volume that holds the
 * sessions' workspaces): a call re-run after its worker died mid-call finds its mark and tells the model that the
 * earlier attempt may have partly run. The journal cannot say it: a step's record is written when it ends.
 */
export interface StepMarks {
  /** Marks the call as started; true when it was marked before (an earlier attempt started it). */
  start(session: string, toolUseId: string): Promise<boolean>;
  /** Drops the session's marks once its invocation's steps are all journaled. */
  clear(session: string): Promise<void>;
}

/** Step marks as files, `<dir>/<session>/<tool_use id>` (ids are letters, digits, `.`, `_`, `-`). */
export function fileStepMarks(dir: string): StepMarks {
  const safe = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, "_");
  return {
    async start(session, toolUseId) {
      const folder = join(dir, safe(session));
      await mkdir(folder, { recursive: true });
      try {
        await writeFile(join(folder, safe(toolUseId)), "", { flag: "wx" });
        return false;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return true;
        throw error;
      }
    },
    async clear(session) {
      await rm(join(dir, safe(session)), { recursive: true, force: true });
    },
  };
}
