import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { type FileLocks, sharedFileLocks } from "../fs/file-locks.js";
import { NotRegularFileError, openRegularFile } from "../fs/open-regular-file.js";
import { specialFileKind } from "../fs/special-file-kind.js";
import { writeFileSafely } from "../fs/write-file-safely.js";
import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import { boundedDiff } from "./bounded-diff.js";
import type { FileAccess } from "./file-access.js";
import { getReadTracker } from "./read-tracker.js";
import type { Workspace } from "./workspace.js";

export interface WriteInput {
  file_path: string;
  content: string;
}

export interface WriteToolOptions {
  workspace: Workspace;
  /** Characters of diff shown after overwriting a file. Default 10 000. */
  maxDiffChars?: number;
  /** Milliseconds the diff of an overwrite may take before a summary replaces it. Default 500. */
  diffTimeoutMs?: number;
  /** Largest previous content read to show a diff, in bytes. Default 16 MiB. */
  maxDiffFileBytes?: number;
  /** One writer per file; share one instance between every tool that writes. Default: the process-wide locks. */
  locks?: FileLocks;
  /** Where the file's text is read for the diff and written (an editor's buffer); default the disk. */
  files?: FileAccess;
}

export function createWriteTool(options: WriteToolOptions): Tool<WriteInput> {
  const { workspace } = options;
  const maxDiffChars = options.maxDiffChars ?? 10_000;
  const maxDiffFileBytes = options.maxDiffFileBytes ?? 16 * 1024 * 1024;
  const locks = options.locks ?? sharedFileLocks;
  /** Resolves the path and checks that it may be written (read before an overwrite), without writing. */
  async function plan(input: WriteInput, state: ToolState, signal: AbortSignal, path?: string) {
    path ??= await workspace.resolve(input.file_path);
    const shown = workspace.display(path);
    const tracker = getReadTracker(state);
    const before = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw new ToolError(`Cannot write ${shown}: ${error.message}`);
    });
    if (before?.isDirectory()) throw new ToolError(`${shown} is a directory; give the path of a file.`);
    if (before && !before.isFile()) {
      throw new ToolError(
        `${shown} is not a regular file (it is ${specialFileKind(before)}); Write only writes regular files.`,
      );
    }
    let previous: string | undefined;
    if (before) {
      tracker.assertFresh(path, before, shown);
      if (options.files?.readText) {
        previous = await options.files.readText(path, signal).catch((error: Error) => {
          throw new ToolError(`Cannot read ${shown} through the editor: ${error.message}`);
        });
      } else if (before.size <= maxDiffFileBytes) previous = await readText(path, shown);
    }
    return { path, shown, tracker, before, previous };
  }
  return {
    name: "Write",
    description: [
      "Writes a file to the local filesystem, creating it (and its parent folders) or replacing it whole.",
      "- To change part of an existing file, prefer Edit: it sends only the change.",
      "- An existing file must have been Read in this session first, and must not have changed since; otherwise the write is refused.",
      "- file_path should be absolute; a relative path resolves against the working folder. Only paths inside the workspace can be written.",
      "- The write is atomic (a temporary file, then a rename) and keeps the file's owner and permissions; read-only files are refused.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "The path of the file to write (absolute preferred)" },
        content: { type: "string", description: "The full content of the file" },
      },
      required: ["file_path", "content"],
      additionalProperties: false,
    },
    eagerInputStreaming: true,
    permissionFacts: (input) => ({ paths: [{ path: input.file_path, access: "write" }] }),
    summarize: (input) => `Write ${input.file_path}`,
    /**
     * Everything but the write: an overwrite that cannot happen fails before anyone is asked to allow it. Under
     * the file's lock too, so that it never sees a write of another call half done (the file new, the record of
     * it not yet).
     */
    async check(input, context) {
      const path = await workspace.resolve(input.file_path);
      await locks.run(path, () => plan(input, context.state, context.signal, path));
    },
    async run(input, context) {
      const path = await workspace.resolve(input.file_path);
      // Calls that write one file run one after another, each checking the file as the previous one left it.
      return locks.run(path, async () => {
        const { shown, tracker, before, previous } = await plan(input, context.state, context.signal, path);
        if (context.signal.aborted)
          throw new ToolError("Write was aborted before it started; nothing was written.");
        const written = options.files?.writeText
          ? await writeThrough(options.files.writeText, path, input.content, shown, context.signal)
          : await writeFileSafely(path, input.content, {
              roots: await workspace.realRoots(),
              expect: before ?? "absent",
            }).catch((error: Error) => {
              throw new ToolError(`Cannot write ${shown}: ${error.message}.`);
            });
        tracker.record(path, written.stats, "write");
        const lines = countLines(input.content);
        const size = `${lines} ${lines === 1 ? "line" : "lines"}, ${Buffer.byteLength(input.content)} bytes`;
        const links = hardLinkNote(written.stats);
        if (!before) return `Created ${shown} (${size}).`;
        if (previous === input.content)
          return `Wrote ${shown} (${size})${links}; its content was already the same.`;
        if (previous === undefined)
          return `Updated ${shown} (${size})${links}; it was ${before.size} bytes before, too large to diff.`;
        if (previous.includes("\0"))
          return `Updated ${shown} (${size})${links}; it was a binary file before.`;
        const diff = context.signal.aborted
          ? "[The diff was skipped: the run was aborted.]"
          : boundedDiff(shown, previous, input.content, {
              maxChars: maxDiffChars,
              ...(options.diffTimeoutMs !== undefined ? { timeoutMs: options.diffTimeoutMs } : {}),
            });
        return `Updated ${shown} (${size})${links}.\n\n${diff}`;
      });
    },
  };
}

/**
 * Writes through an editor (`FileAccess.writeText`) and returns the file as it is on disk afterwards, for the
 * read tracker: an editor saves what it writes, so the next Edit sees the file it recorded.
 */
export async function writeThrough(
  writeText: NonNullable<FileAccess["writeText"]>,
  path: string,
  content: string,
  shown: string,
  signal: AbortSignal,
): Promise<{ stats: Stats }> {
  await writeText(path, content, signal).catch((error: Error) => {
    throw new ToolError(`Cannot write ${shown} through the editor: ${error.message}.`);
  });
  const stats = await stat(path).catch(() => undefined);
  // Not on disk (an editor that keeps it unsaved): recorded as seen, so that the model's next change may follow.
  return { stats: stats ?? ({ mtimeMs: 0, size: Buffer.byteLength(content), nlink: 1 } as Stats) };
}

/** The previous content, read without blocking on a file swapped for a FIFO since it was checked. */
async function readText(path: string, shown: string): Promise<string> {
  try {
    const { handle } = await openRegularFile(path, { realPath: true });
    try {
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      throw new ToolError(`${shown} is not a regular file (it is ${specialFileKind(error.stats)}).`);
    }
    throw new ToolError(`Cannot write ${shown}: ${(error as Error).message}`);
  }
}

function hardLinkNote(stats: Stats): string {
  return stats.nlink > 1 ? `, in place: its ${stats.nlink - 1} other hard link(s) see the change` : "";
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}
