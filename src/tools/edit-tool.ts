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
import { describeNearMatches } from "./find-near-matches.js";
import { getReadTracker } from "./read-tracker.js";
import type { Workspace } from "./workspace.js";
import { writeThrough } from "./write-tool.js";

export interface EditInput {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface EditToolOptions {
  workspace: Workspace;
  /** Characters of unified diff in the result. Default 10 000. */
  maxDiffChars?: number;
  /** Largest file Edit loads, in bytes. Default 16 MiB. */
  maxFileBytes?: number;
  /** Milliseconds the diff may take before a summary replaces it. Default 500. */
  diffTimeoutMs?: number;
  /** One writer per file; share one instance between every tool that writes. Default: the process-wide locks. */
  locks?: FileLocks;
  /** Where the file's text is read and written (an editor's buffer); default the disk. See `FileAccess`. */
  files?: FileAccess;
}

/**
 * Replaces exact text in a file. The result is `Edited <path> (...)` followed by a unified diff
 * (`--- a`/`+++ b`/`@@` lines), which the model reads and the terminal can render.
 *
 * Edits of one file never lose each other: they run one at a time under the file's lock, and each matches
 * old_string against the file as it is then (so several Edits of one turn to different parts all land); an
 * Edit whose text an earlier one changed fails, saying the file changed.
 */
export function createEditTool(options: EditToolOptions): Tool<EditInput> {
  const { workspace } = options;
  const maxDiffChars = options.maxDiffChars ?? 10_000;
  const maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
  const locks = options.locks ?? sharedFileLocks;
  const diffOf = (name: string, before: string, after: string, signal: AbortSignal) =>
    signal.aborted
      ? "[The diff was skipped: the run was aborted.]"
      : boundedDiff(name, before, after, {
          maxChars: maxDiffChars,
          ...(options.diffTimeoutMs !== undefined ? { timeoutMs: options.diffTimeoutMs } : {}),
        });
  /** Checks and matches an edit of the real path `path` against the file as it is now, writing nothing. */
  async function plan(input: EditInput, state: ToolState, signal: AbortSignal, path: string) {
    const shown = workspace.display(path);
    if (input.old_string === input.new_string) {
      throw new ToolError("old_string and new_string are the same: there is no change to make.");
    }
    const tracker = getReadTracker(state);
    const before = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw new ToolError(`Cannot edit ${shown}: ${error.message}`);
    });
    if (!before) {
      if (input.old_string !== "") {
        throw new ToolError(`File does not exist: ${shown}. Use Write to create a new file.`);
      }
      return { kind: "create", path, shown, tracker } as const;
    }
    if (!before.isFile()) {
      throw new ToolError(`${shown} is not a regular file (it is ${specialFileKind(before)}).`);
    }
    if (before.size > maxFileBytes) {
      throw new ToolError(
        `${shown} is ${before.size} bytes, larger than the ${maxFileBytes} bytes Edit handles.`,
      );
    }
    tracker.assertFresh(path, before, shown);
    if (input.old_string === "") {
      throw new ToolError(
        `old_string is empty, but ${shown} already exists. Give the exact text to replace, or use Write to replace the whole file.`,
      );
    }
    const readText = options.files?.readText;
    const content = readText
      ? await readText(path, signal).catch((error: Error) => {
          throw new ToolError(`Cannot read ${shown} through the editor: ${error.message}`);
        })
      : decodeUtf8(await readBytes(path, shown), shown);
    const { oldString, newString } = matchLineEndings(content, input.old_string, input.new_string);
    const positions = findAll(content, oldString);
    if (positions.length === 0) {
      const hint = describeNearMatches(content, input.old_string);
      // An earlier Edit or Write of this run changed the file after the model last Read it: say so, since the
      // text the model copied may be exactly what that change replaced.
      const changed = tracker.changedByTool(path)
        ? ` The file changed since you last Read it: another Edit or Write in this session changed it after that Read, so the text may no longer be there. Read it again.`
        : "";
      throw new ToolError(`old_string was not found in ${shown}.${changed}${hint ? `\n${hint}` : ""}`);
    }
    if (positions.length > 1 && !input.replace_all) {
      const lines = positions.slice(0, 10).map((at) => lineOf(content, at));
      const more = positions.length > 10 ? ", …" : "";
      throw new ToolError(
        `old_string matches ${positions.length} times in ${shown} (at lines ${lines.join(", ")}${more}). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.`,
      );
    }
    return { kind: "edit", path, shown, tracker, before, content, positions, oldString, newString } as const;
  }
  return {
    name: "Edit",
    description: [
      "Replaces exact text in a file: old_string becomes new_string.",
      "- Read the file first in this session; Edit refuses files you have not Read, or that changed on disk since.",
      "- old_string must match the file exactly, whitespace and indentation included (copy it from Read's output without the line-number prefix). It must appear exactly once, unless replace_all is true; include enough surrounding lines to make it unique.",
      "- replace_all replaces every occurrence (e.g. to rename a variable).",
      "- To create a file, use Write (or Edit with an empty old_string on a file that does not exist).",
      "- The result shows a unified diff of the change.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "The path of the file to modify (absolute preferred)" },
        old_string: { type: "string", description: "The exact text to replace" },
        new_string: {
          type: "string",
          description: "The text to replace it with (must differ from old_string)",
        },
        replace_all: {
          type: "boolean",
          description: "Replace every occurrence of old_string (default false)",
        },
      },
      required: ["file_path", "old_string", "new_string"],
      additionalProperties: false,
    },
    eagerInputStreaming: true,
    permissionFacts: (input) => ({ paths: [{ path: input.file_path, access: "write" }] }),
    summarize: (input) => `Edit ${input.file_path}`,
    /**
     * Everything but the write: a call that cannot succeed fails here, before anyone is asked to allow it. Under
     * the file's lock, so that it never sees another call's write half recorded.
     */
    async check(input, context) {
      const path = await workspace.resolve(input.file_path);
      await locks.run(path, () => plan(input, context.state, context.signal, path));
    },
    async run(input, context) {
      const path = await workspace.resolve(input.file_path);
      // Planned again under the lock: the file may have changed since the check (another Edit of this turn).
      return locks.run(path, async () => {
        const planned = await plan(input, context.state, context.signal, path);
        const { shown, tracker } = planned;
        const roots = await workspace.realRoots();
        const writeText = options.files?.writeText;
        if (planned.kind === "create") {
          if (context.signal.aborted)
            throw new ToolError("Edit was aborted before it wrote; nothing was created.");
          const written = writeText
            ? await writeThrough(writeText, path, input.new_string, shown, context.signal)
            : await writeFileSafely(path, input.new_string, { roots, expect: "absent" }).catch(
                (error: Error) => {
                  throw new ToolError(`Cannot create ${shown}: ${error.message}.`);
                },
              );
          tracker.record(path, written.stats, "write");
          return `Created ${shown}.\n\n${diffOf(shown, "", input.new_string, context.signal)}`;
        }
        const { before, content, positions, oldString, newString } = planned;
        const updated = replaceAt(content, positions, oldString.length, newString);
        if (context.signal.aborted)
          throw new ToolError("Edit was aborted before it wrote; the file is unchanged.");
        const written = writeText
          ? await writeThrough(writeText, path, updated, shown, context.signal)
          : await writeFileSafely(path, updated, { roots, expect: before }).catch((error: Error) => {
              throw new ToolError(`Cannot write ${shown}: ${error.message}.`);
            });
        tracker.record(path, written.stats, "write");
        const count = positions.length === 1 ? "1 replacement" : `${positions.length} replacements`;
        const links =
          written.stats.nlink > 1
            ? `; in place: its ${written.stats.nlink - 1} other hard link(s) see the change`
            : "";
        return `Edited ${shown} (${count}${links}).\n\n${diffOf(shown, content, updated, context.signal)}`;
      });
    },
  };
}

/** The file's bytes, read without blocking on a file swapped for a FIFO since it was checked. */
async function readBytes(path: string, shown: string): Promise<Uint8Array> {
  try {
    const { handle } = await openRegularFile(path, { realPath: true });
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      throw new ToolError(`${shown} is not a regular file (it is ${specialFileKind(error.stats)}).`);
    }
    throw new ToolError(`Cannot edit ${shown}: ${(error as Error).message}`);
  }
}

/**
 * The file as text, or a ToolError: decoding other bytes as UTF-8 would write U+FFFD over every one of them
 * (Read only sniffs the first 8 KiB, so a Latin-1 or binary tail can get this far). A BOM is kept.
 */
function decodeUtf8(bytes: Uint8Array, shown: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolError(
      `${shown} is not valid UTF-8 text, so Edit cannot change it without corrupting its other bytes. Use Bash (e.g. sed, iconv) to change it.`,
    );
  }
}

/**
 * Models write "\n" even when the file uses "\r\n"; when the text only matches with the file's line endings,
 * use them for both strings so the file keeps consistent endings.
 */
function matchLineEndings(content: string, oldString: string, newString: string) {
  if (content.includes(oldString) || !content.includes("\r\n") || !oldString.includes("\n")) {
    return { oldString, newString };
  }
  const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");
  return content.includes(crlf(oldString))
    ? { oldString: crlf(oldString), newString: crlf(newString) }
    : { oldString, newString };
}

function findAll(content: string, needle: string): number[] {
  const positions: number[] = [];
  for (let at = content.indexOf(needle); at !== -1; at = content.indexOf(needle, at + needle.length)) {
    positions.push(at);
  }
  return positions;
}

/** Splices by position, never `String.replace`, whose `$&`/`$1` patterns would alter new_string. */
function replaceAt(content: string, positions: number[], length: number, replacement: string): string {
  let result = "";
  let from = 0;
  for (const at of positions) {
    result += content.slice(from, at) + replacement;
    from = at + length;
  }
  return result + content.slice(from);
}

function lineOf(content: string, index: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < index; i = content.indexOf("\n", i + 1)) line++;
  return line;
}
