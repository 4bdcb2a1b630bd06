import type { Stats } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { NotRegularFileError, openRegularFile } from "../fs/open-regular-file.js";
import { specialFileKind } from "../fs/special-file-kind.js";
import type { Tool, ToolOutput } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import { detectFileKind, SNIFF_BYTES } from "./detect-file-kind.js";
import type { FileAccess } from "./file-access.js";
import { getReadTracker } from "./read-tracker.js";
import type { Workspace } from "./workspace.js";

export interface ReadInput {
  file_path: string;
  offset?: number;
  limit?: number;
}

export interface ReadToolOptions {
  /** Where paths may be read (the workspace, plus the folder where Bash saves full outputs). */
  workspace: Workspace;
  /** Lines returned when `limit` is not given. Default 2000. */
  defaultLimit?: number;
  /** Characters kept of one line. Default 2000. */
  maxLineChars?: number;
  /** Characters of numbered text in one result, whatever the limit. Default 100 000 (about 25k tokens). */
  maxChars?: number;
  /** Largest image returned, in bytes: 3.75 MiB, so that its base64 stays under the 5 MB providers accept. */
  maxImageBytes?: number;
  /** Where a text file's content comes from (an editor's buffer); default the disk. See `FileAccess`. */
  files?: FileAccess;
}

/** Beyond this many bytes Read stops counting the file's lines just to report the total. */
const COUNT_LINES_UP_TO_BYTES = 16 * 1024 * 1024;

export function createReadTool(options: ReadToolOptions): Tool<ReadInput> {
  const { workspace } = options;
  const defaultLimit = options.defaultLimit ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  const maxChars = options.maxChars ?? 100_000;
  const maxImageBytes = options.maxImageBytes ?? 3.75 * 1024 * 1024;
  return {
    name: "Read",
    description: [
      "Reads a file from the local filesystem. Use it to look at a file before you change it (Write and Edit refuse files you have not Read) and instead of cat/head/tail in Bash.",
      `- file_path should be absolute; a relative path resolves against the working folder. Only files inside the workspace (and full outputs saved by Bash) can be read.`,
      `- By default it returns up to ${defaultLimit} lines from the start. For long files pass offset (the 1-based line to start at) and limit (how many lines).`,
      `- Lines are numbered like cat -n ("     1\\tfirst line"); the number and the tab are not part of the file. Lines longer than ${maxLineChars} characters are cut.`,
      "- PNG, JPEG, GIF and WebP files are returned as images. Other binary files are refused. It cannot list folders: use Glob, or ls through Bash.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "The path of the file to read (absolute preferred)" },
        offset: { type: "integer", minimum: 0, description: "The 1-based line number to start reading from" },
        limit: { type: "integer", minimum: 1, description: "The number of lines to read" },
      },
      required: ["file_path"],
      additionalProperties: false,
    },
    readOnly: true,
    permissionFacts: (input) => ({ paths: [{ path: input.file_path, access: "read" }] }),
    summarize: (input) => `Read ${input.file_path}${input.offset ? ` from line ${input.offset}` : ""}`,
    async run(input, context) {
      const path = await workspace.resolve(input.file_path);
      const shown = workspace.display(path);
      const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw new ToolError(`File does not exist: ${shown}`);
        throw new ToolError(`Cannot read ${shown}: ${error.message}`);
      });
      if (stats.isDirectory()) {
        throw new ToolError(
          `${shown} is a directory, not a file. Use Glob to list its files (e.g. pattern "*" with path "${shown}"), or ls through Bash.`,
        );
      }
      if (!stats.isFile()) {
        throw new ToolError(
          `${shown} is not a regular file (it is ${specialFileKind(stats)}); Read reads files.`,
        );
      }
      // Everything below reads through one descriptor opened without blocking and checked to be a regular file:
      // a file swapped for a FIFO or a device since the stat above is refused instead of hanging the call.
      let opened: Awaited<ReturnType<typeof openRegularFile>>;
      try {
        opened = await openRegularFile(path, { realPath: true });
      } catch (error) {
        if (error instanceof NotRegularFileError) {
          throw new ToolError(`${shown} is not a regular file (it is ${specialFileKind(error.stats)}).`);
        }
        throw new ToolError(`Cannot read ${shown}: ${(error as Error).message}`);
      }
      const { handle } = opened;
      try {
        return await readOpened(handle, opened.stats, shown, path, input, context);
      } finally {
        await handle.close();
      }
    },
  };

  async function readOpened(
    handle: FileHandle,
    stats: Stats,
    shown: string,
    path: string,
    input: ReadInput,
    context: { state: ToolState; signal: AbortSignal },
  ): Promise<ToolOutput> {
    const tracker = getReadTracker(context.state);
    if (stats.size === 0) {
      tracker.record(path, stats);
      return `(${shown} exists but is empty.)`;
    }
    const head = await readHead(handle);
    const kind = detectFileKind(head);
    if (kind.kind === "binary") {
      throw new ToolError(
        `Cannot read ${shown}: it looks like a binary file (${kind.reason}; ${stats.size} bytes). Read shows text and PNG/JPEG/GIF/WebP images only; use Bash (e.g. file, xxd | head) to inspect it.`,
      );
    }
    if (kind.kind === "image") {
      if (stats.size > maxImageBytes) {
        throw new ToolError(
          `${shown} is an image of ${stats.size} bytes, larger than the ${maxImageBytes} bytes Read can return. Resize it with Bash first (e.g. into a smaller copy) if you need to see it.`,
        );
      }
      const data = await readAll(handle, stats.size);
      tracker.record(path, stats);
      return [
        { type: "text" as const, text: `Image ${shown} (${kind.mediaType}, ${stats.size} bytes):` },
        {
          type: "image" as const,
          source: { type: "base64" as const, media_type: kind.mediaType, data: data.toString("base64") },
        },
      ];
    }
    const start = Math.max(1, input.offset ?? 1);
    const limit = input.limit ?? defaultLimit;
    // An editor's buffer is what the user sees (unsaved changes included); the disk's bytes otherwise.
    const source = options.files?.readText
      ? [Buffer.from(await editorText(options.files.readText, path, shown, context.signal), "utf8")]
      : handle.createReadStream({ start: 0, highWaterMark: 64 * 1024, autoClose: false });
    const window = await readLines(source, start, limit, maxLineChars, maxChars, context.signal);
    tracker.record(path, stats);
    if (window.lines.length === 0) {
      throw new ToolError(
        `${shown} has ${window.totalLines} lines; offset ${start} is past the end. Use an offset between 1 and ${window.totalLines}.`,
      );
    }
    const last = start + window.lines.length - 1;
    const body = window.lines.map((line, i) => `${String(start + i).padStart(6)}\t${line}`).join("\n");
    const notes: string[] = [];
    if (window.cutLines > 0) {
      notes.push(`${window.cutLines} line(s) longer than ${maxLineChars} characters were cut.`);
    }
    const hasMore = window.totalLines === undefined || last < window.totalLines;
    if (hasMore) {
      const total = window.totalLines === undefined ? "" : ` of ${window.totalLines}`;
      notes.push(
        `Showing lines ${start}-${last}${total}. To read more, call Read again with offset ${last + 1} (and a limit).`,
      );
    }
    return notes.length === 0 ? body : `${body}\n\n[${notes.join(" ")}]`;
  }
}

async function editorText(
  readText: NonNullable<FileAccess["readText"]>,
  path: string,
  shown: string,
  signal: AbortSignal,
): Promise<string> {
  try {
    return await readText(path, signal);
  } catch (error) {
    throw new ToolError(`Cannot read ${shown} through the editor: ${(error as Error).message}`);
  }
}

async function readHead(handle: FileHandle): Promise<Uint8Array> {
  const buffer = new Uint8Array(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
  return buffer.subarray(0, bytesRead);
}

/** The first `size` bytes (the file's size when it was opened), read by position. */
async function readAll(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.alloc(size);
  let offset = 0;
  while (offset < size) {
    const { bytesRead } = await handle.read(buffer, offset, size - offset, offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return buffer.subarray(0, offset);
}

/** A line's end: "\r\n", a lone "\r" or "\n". */
const LINE_BREAK = /\r\n|\r|\n/g;

interface LineWindow {
  lines: string[];
  /** Undefined when the file was too large to count to its end. */
  totalLines: number | undefined;
  cutLines: number;
}

/**
 * Streams the file once, keeping lines [start, start + limit) with each line cut to `maxLineChars` and the
 * window cut at `maxChars`, so memory stays bounded whatever the file (even a single 1 GB line). `source` is the
 * file's read stream (its handle stays open: the caller closes it), or an editor buffer's bytes.
 */
async function readLines(
  source: AsyncIterable<Buffer> | Iterable<Buffer> | (NodeJS.ReadableStream & { destroy(): void }),
  start: number,
  limit: number,
  maxLineChars: number,
  maxChars: number,
  signal: AbortSignal,
): Promise<LineWindow> {
  const lines: string[] = [];
  let lineNumber = 0;
  let current = "";
  let currentLength = 0;
  let chars = 0;
  let cutLines = 0;
  let windowFull = false;
  let bytes = 0;
  const finishLine = (): void => {
    lineNumber++;
    if (!windowFull && lineNumber >= start) {
      let line = current;
      let length = currentLength;
      if (current.length === currentLength && current.endsWith("\r")) {
        line = current.slice(0, -1);
        length--;
      }
      if (length > maxLineChars) {
        line = `${line.slice(0, maxLineChars)}… [line cut: ${length} characters]`;
        cutLines++;
      }
      if (lines.length > 0 && chars + line.length > maxChars) windowFull = true;
      else {
        lines.push(line);
        chars += line.length + 8;
        if (lines.length >= limit) windowFull = true;
      }
    }
    current = "";
    currentLength = 0;
  };
  let carriedCR = false;
  const decoder = new StringDecoder("utf8");
  let counted = true;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (signal.aborted) throw new ToolError("Read was aborted.");
      bytes += chunk.length;
      consume(decoder.write(chunk));
      if (windowFull && bytes > COUNT_LINES_UP_TO_BYTES) {
        counted = false;
        break;
      }
    }
  } finally {
    if ("destroy" in source) source.destroy();
  }
  if (counted) {
    consume(decoder.end(), true);
    if (currentLength > 0) finishLine();
  }
  return { lines, totalLines: counted ? lineNumber : undefined, cutLines };

  /**
   * Lines end at "\n", "\r\n" or a lone "\r" (classic Mac files: read as one line, a file of them showed as
   * empty and offsets meant nothing). A "\r" at the end of a chunk waits for the next one, which may start "\n".
   */
  function consume(chunk: string, final = false): void {
    let text = carriedCR ? `\r${chunk}` : chunk;
    carriedCR = !final && text.endsWith("\r");
    if (carriedCR) text = text.slice(0, -1);
    let from = 0;
    LINE_BREAK.lastIndex = 0;
    for (let found = LINE_BREAK.exec(text); found !== null; found = LINE_BREAK.exec(text)) {
      append(text.slice(from, found.index));
      finishLine();
      from = found.index + found[0].length;
    }
    append(text.slice(from));
  }

  function append(piece: string): void {
    // Only the part that can be shown is kept; the length is still counted for the note.
    if (current.length <= maxLineChars + 1) current += piece.slice(0, maxLineChars + 2 - current.length);
    currentLength += piece.length;
  }
}
