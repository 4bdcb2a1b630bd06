import { readFile, stat } from "node:fs/promises";
import { lazyRequire } from "../fs/lazy-require.js";
import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import { getReadTracker } from "./read-tracker.js";
import { truncateOutput } from "./truncate-output.js";
import type { Workspace } from "./workspace.js";
import { writeFileAtomic } from "./write-file-atomic.js";

const diffLib = lazyRequire<typeof import("diff")>("diff");

export interface WriteInput {
  file_path: string;
  content: string;
}

export interface WriteToolOptions {
  workspace: Workspace;
  /** Characters of diff shown after overwriting a file. Default 10 000. */
  maxDiffChars?: number;
}

export function createWriteTool(options: WriteToolOptions): Tool<WriteInput> {
  const { workspace } = options;
  const maxDiffChars = options.maxDiffChars ?? 10_000;
  /** Resolves the path and checks that it may be written (read before an overwrite), without writing. */
  async function plan(input: WriteInput, state: ToolState) {
    const path = await workspace.resolve(input.file_path);
    const shown = workspace.display(path);
    const tracker = getReadTracker(state);
    const before = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw new ToolError(`Cannot write ${shown}: ${error.message}`);
    });
    if (before?.isDirectory()) throw new ToolError(`${shown} is a directory; give the path of a file.`);
    let previous: string | undefined;
    if (before) {
      tracker.assertFresh(path, before, shown);
      previous = await readFile(path, "utf8");
    }
    return { path, shown, tracker, previous };
  }
  return {
    name: "Write",
    description: [
      "Writes a file to the local filesystem, creating it (and its parent folders) or replacing it whole.",
      "- To change part of an existing file, prefer Edit: it sends only the change.",
      "- An existing file must have been Read in this session first, and must not have changed since; otherwise the write is refused.",
      "- file_path should be absolute; a relative path resolves against the working folder. Only paths inside the workspace can be written.",
      "- The write is atomic (a temporary file, then a rename) and keeps the file's permissions.",
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
    /** Everything but the write: an overwrite that cannot happen fails before anyone is asked to allow it. */
    async check(input, context) {
      await plan(input, context.state);
    },
    async run(input, context) {
      const { path, shown, tracker, previous } = await plan(input, context.state);
      if (context.signal.aborted)
        throw new ToolError("Write was aborted before it started; nothing was written.");
      await writeFileAtomic(path, input.content).catch((error: Error) => {
        throw new ToolError(`Cannot write ${shown}: ${error.message}`);
      });
      tracker.record(path, await stat(path));
      const lines = countLines(input.content);
      const size = `${lines} ${lines === 1 ? "line" : "lines"}, ${Buffer.byteLength(input.content)} bytes`;
      if (previous === undefined) return `Created ${shown} (${size}).`;
      if (previous === input.content) return `Wrote ${shown} (${size}); its content was already the same.`;
      if (previous.includes("\0")) return `Updated ${shown} (${size}); it was a binary file before.`;
      const diff = diffLib().createTwoFilesPatch(shown, shown, previous, input.content, "", "", {
        context: 3,
      });
      return `Updated ${shown} (${size}).\n\n${truncateOutput(diff, maxDiffChars).text}`;
    },
  };
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}
