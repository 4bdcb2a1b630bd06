import { readFile, stat } from "node:fs/promises";
import { lazyRequire } from "../fs/lazy-require.js";
import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import { describeNearMatches } from "./find-near-matches.js";
import { getReadTracker } from "./read-tracker.js";
import { truncateOutput } from "./truncate-output.js";
import type { Workspace } from "./workspace.js";
import { writeFileAtomic } from "./write-file-atomic.js";

const diffLib = lazyRequire<typeof import("diff")>("diff");

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
}

/**
 * Replaces exact text in a file. The result is `Edited <path> (...)` followed by a unified diff
 * (`--- a`/`+++ b`/`@@` lines), which the model reads and the terminal can render.
 */
export function createEditTool(options: EditToolOptions): Tool<EditInput> {
  const { workspace } = options;
  const maxDiffChars = options.maxDiffChars ?? 10_000;
  const maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
  /** Resolves, checks and matches an edit without writing anything. */
  async function plan(input: EditInput, state: ToolState) {
    const path = await workspace.resolve(input.file_path);
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
    if (!before.isFile()) throw new ToolError(`${shown} is not a regular file.`);
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
    const content = decodeUtf8(await readFile(path), shown);
    const { oldString, newString } = matchLineEndings(content, input.old_string, input.new_string);
    const positions = findAll(content, oldString);
    if (positions.length === 0) {
      const hint = describeNearMatches(content, input.old_string);
      throw new ToolError(`old_string was not found in ${shown}.${hint ? `\n${hint}` : ""}`);
    }
    if (positions.length > 1 && !input.replace_all) {
      const lines = positions.slice(0, 10).map((at) => lineOf(content, at));
      const more = positions.length > 10 ? ", …" : "";
      throw new ToolError(
        `old_string matches ${positions.length} times in ${shown} (at lines ${lines.join(", ")}${more}). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.`,
      );
    }
    return { kind: "edit", path, shown, tracker, content, positions, oldString, newString } as const;
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
    /** Everything but the write: a call that cannot succeed fails here, before anyone is asked to allow it. */
    async check(input, context) {
      await plan(input, context.state);
    },
    async run(input, context) {
      const planned = await plan(input, context.state);
      const { path, shown, tracker } = planned;
      if (planned.kind === "create") {
        if (context.signal.aborted)
          throw new ToolError("Edit was aborted before it wrote; nothing was created.");
        await writeFileAtomic(path, input.new_string);
        tracker.record(path, await stat(path));
        return `Created ${shown}.\n\n${diffOf(shown, "", input.new_string, maxDiffChars)}`;
      }
      const { content, positions, oldString, newString } = planned;
      const updated = replaceAt(content, positions, oldString.length, newString);
      if (context.signal.aborted)
        throw new ToolError("Edit was aborted before it wrote; the file is unchanged.");
      await writeFileAtomic(path, updated).catch((error: Error) => {
        throw new ToolError(`Cannot write ${shown}: ${error.message}`);
      });
      tracker.record(path, await stat(path));
      const count = positions.length === 1 ? "1 replacement" : `${positions.length} replacements`;
      return `Edited ${shown} (${count}).\n\n${diffOf(shown, content, updated, maxDiffChars)}`;
    },
  };
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

function diffOf(name: string, before: string, after: string, maxChars: number): string {
  const patch = diffLib().createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, "", "", {
    context: 3,
  });
  // The first line of createTwoFilesPatch is a "====" separator that says nothing here.
  const body = patch.startsWith("===") ? patch.slice(patch.indexOf("\n") + 1) : patch;
  return truncateOutput(body, maxChars).text;
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
