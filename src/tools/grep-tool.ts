import { spawn } from "node:child_process";
import { access, constants, stat } from "node:fs/promises";
import { isInside, relativeInside } from "../fs/real-path.js";
import { specialFileKind } from "../fs/special-file-kind.js";
import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import { truncateOutput } from "./truncate-output.js";
import type { Workspace } from "./workspace.js";

export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  output_mode?: "content" | "files_with_matches" | "count";
  "-i"?: boolean;
  "-n"?: boolean;
  "-A"?: number;
  "-B"?: number;
  "-C"?: number;
  multiline?: boolean;
  head_limit?: number;
}

export interface GrepToolOptions {
  workspace: Workspace;
  /** The ripgrep binary. Default: the one `@vscode/ripgrep` ships for this platform. */
  rgPath?: string;
  /** Characters in one result. Default 30 000. */
  maxChars?: number;
  /** Longest line shown in content mode; longer ones (minified code) are replaced by a preview. Default 500. */
  maxColumns?: number;
  /**
   * Files never searched, as gitignore-style globs relative to `root` (the workspace root the search runs
   * from; anchored ones start with `/`): the Read deny rules, so a search of a parent folder cannot read them.
   * They win over the model's `glob`.
   */
  excludes?: (root: string) => Promise<readonly string[]> | readonly string[];
  /** Milliseconds a search may run before it is stopped and what it found so far returned. Default 120 000. */
  timeoutMs?: number;
}

/** Loads the binary's path on first use: `@vscode/ripgrep` throws at import time on a platform it lacks. */
async function defaultRgPath(): Promise<string> {
  try {
    return (await import("@vscode/ripgrep")).rgPath;
  } catch (error) {
    throw new ToolError(
      `Grep is unavailable: the ripgrep binary could not be found (${(error as Error).message}). Reinstall mitsu's dependencies so that the @vscode/ripgrep package for this platform is present, or use grep through Bash.`,
    );
  }
}

export function createGrepTool(options: GrepToolOptions): Tool<GrepInput> {
  const { workspace } = options;
  const maxChars = options.maxChars ?? 30_000;
  const maxColumns = options.maxColumns ?? 500;
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    name: "Grep",
    description: [
      "Searches file contents with ripgrep. Use it instead of grep or rg through Bash.",
      '- pattern is a ripgrep (Rust) regular expression: escape braces and other metacharacters to match them literally (e.g. "interface\\\\{\\\\}").',
      '- path: the file or folder to search (default: the working folder). glob filters files (e.g. "*.ts", "**/*.{ts,tsx}"); type filters by ripgrep file type (e.g. js, py, rust).',
      '- output_mode: "files_with_matches" (default) lists matching files; "content" shows matching lines (with -n line numbers, -A/-B/-C context lines); "count" gives matches per file.',
      "- -i: case-insensitive. multiline: let patterns span lines (. matches newlines).",
      "- head_limit: keep only the first N lines or entries of the output.",
      `- Files ignored by .gitignore are skipped, hidden files are searched (not .git). Results are sorted by path and capped at ${maxChars} characters; narrow the search if you hit the cap.`,
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "The regular expression to search for" },
        path: { type: "string", description: "File or folder to search in (default: the working folder)" },
        glob: { type: "string", description: 'Glob that files must match, e.g. "*.js" or "src/**/*.ts"' },
        type: { type: "string", description: "ripgrep file type, e.g. js, py, rust, go" },
        output_mode: {
          type: "string",
          enum: ["content", "files_with_matches", "count"],
          description: 'What to return (default "files_with_matches")',
        },
        "-i": { type: "boolean", description: "Case-insensitive search" },
        "-n": { type: "boolean", description: "Show line numbers (content mode; default true)" },
        "-A": {
          type: "integer",
          minimum: 0,
          description: "Lines of context after each match (content mode)",
        },
        "-B": {
          type: "integer",
          minimum: 0,
          description: "Lines of context before each match (content mode)",
        },
        "-C": {
          type: "integer",
          minimum: 0,
          description: "Lines of context around each match (content mode)",
        },
        multiline: { type: "boolean", description: "Allow patterns to span lines" },
        head_limit: { type: "integer", minimum: 1, description: "Return only the first N lines or entries" },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    readOnly: true,
    permissionFacts: (input) => ({
      paths: [{ path: input.path ?? ".", access: "read", folder: true }],
      display: input.pattern,
    }),
    summarize: (input) => `Grep ${JSON.stringify(input.pattern)}${input.path ? ` in ${input.path}` : ""}`,
    async run(input, context) {
      const target = await workspace.resolve(input.path ?? ".");
      // ripgrep opens a path it is given even when it is a FIFO or a device, and waits on it forever (in a
      // folder it skips them itself).
      const kind = await stat(target).catch(() => undefined);
      if (kind && !kind.isFile() && !kind.isDirectory()) {
        throw new ToolError(
          `${workspace.display(target)} is not a regular file or a folder (it is ${specialFileKind(kind)}); Grep searches files.`,
        );
      }
      const rgPath = options.rgPath ?? (await defaultRgPath());
      await access(rgPath, constants.X_OK).catch(() => {
        throw new ToolError(
          `Grep is unavailable: the ripgrep binary ${rgPath} is missing or not executable. Reinstall mitsu's dependencies (@vscode/ripgrep), or use grep through Bash.`,
        );
      });
      const mode = input.output_mode ?? "files_with_matches";
      const args = [
        "--no-config",
        "--no-require-git",
        "--hidden",
        "--glob=!.git",
        "--sort=path",
        "--color=never",
      ];
      if (mode === "files_with_matches") args.push("--files-with-matches");
      else if (mode === "count") args.push("--count", "--with-filename");
      else {
        args.push("--no-heading", "--with-filename", `--max-columns=${maxColumns}`, "--max-columns-preview");
        if (input["-n"] ?? true) args.push("--line-number");
        if (input["-C"] !== undefined) args.push(`--context=${input["-C"]}`);
        if (input["-A"] !== undefined) args.push(`--after-context=${input["-A"]}`);
        if (input["-B"] !== undefined) args.push(`--before-context=${input["-B"]}`);
      }
      if (input["-i"]) args.push("--ignore-case");
      if (input.multiline) args.push("--multiline", "--multiline-dotall");
      if (input.glob) args.push(`--glob=${input.glob}`);
      if (input.type) args.push(`--type=${input.type}`);
      // Paths in the output are as given: relative to the working folder when the search is inside it.
      const cwd = await workspace.resolve(".");
      const rel = relativeInside(cwd, target);
      // ripgrep reads anchored globs from its own folder: run it from the workspace root that holds the target.
      const root = rel !== undefined ? cwd : await rootOf(workspace, target);
      // Last, so that no glob of the model's can include them again (ripgrep: the last matching glob wins).
      for (const glob of (await options.excludes?.(root)) ?? []) args.push(`--glob=!${glob}`);
      args.push(`--regexp=${input.pattern}`);
      if (rel !== "") args.push("--", rel ?? target);
      const { stdout, stderr, code, overflowed, timedOut } = await runRipgrep(
        rgPath,
        args,
        root,
        context.signal,
        timeoutMs,
      );
      if (timedOut && stdout.trim() === "") {
        throw new ToolError(
          `The search found nothing within ${timeoutMs} ms and was stopped. Narrow it with path, glob or type.`,
        );
      }
      if (code === 1 || (code === 0 && stdout.trim() === "")) return "No matches found.";
      if (code !== 0 && !overflowed && stdout.trim() === "") {
        throw new ToolError(`ripgrep failed (exit code ${code}): ${stderr.trim() || "no message"}`);
      }
      let lines = stdout.replace(/\n$/, "").split("\n");
      if (overflowed) lines.pop(); // The last line may be cut mid-way.
      const total = lines.length;
      const atLeast = overflowed ? "at least " : "";
      const notes: string[] = [];
      if (input.head_limit !== undefined && lines.length > input.head_limit) {
        notes.push(`Showing the first ${input.head_limit} of ${atLeast}${total} lines (head_limit).`);
        lines = lines.slice(0, input.head_limit);
      }
      if (mode === "files_with_matches")
        lines.unshift(`Found ${atLeast}${total} file${total === 1 ? "" : "s"}:`);
      const text = lines.join("\n");
      const cut = capHead(text, maxChars);
      if (cut.truncated) {
        notes.push(
          `Output cut at ${maxChars} characters (${cut.omittedLines} more lines). Narrow the search with path, glob, type or head_limit.`,
        );
      }
      if (timedOut) notes.push(`The search was stopped after ${timeoutMs} ms; these are the results so far.`);
      else if (overflowed) notes.push("The search was stopped early: it matched too much.");
      if (code === 2 && stderr.trim()) notes.push(`Some files could not be searched: ${firstLine(stderr)}`);
      return notes.length === 0 ? cut.text : `${cut.text}\n\n[${notes.join(" ")}]`;
    },
  };
}

/** The workspace root that holds `target` (the target itself when none does). */
async function rootOf(workspace: Workspace, target: string): Promise<string> {
  for (const root of workspace.roots) {
    const real = await workspace.resolve(root).catch(() => undefined);
    if (real && isInside(real, target)) return real;
  }
  return target;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return truncateOutput(line, 300).text;
}

/** Search results are cut at the end (the first results are as good as any, and whole lines stay whole). */
function capHead(text: string, maxChars: number): { text: string; truncated: boolean; omittedLines: number } {
  if (text.length <= maxChars) return { text, truncated: false, omittedLines: 0 };
  const cut = text.lastIndexOf("\n", maxChars);
  const kept = cut > 0 ? text.slice(0, cut) : text.slice(0, maxChars);
  const omittedLines = text
    .slice(kept.length)
    .split("\n")
    .filter((line) => line !== "").length;
  return { text: kept, truncated: true, omittedLines };
}

const MAX_COLLECTED_BYTES = 4 * 1024 * 1024;

function runRipgrep(
  rgPath: string,
  args: string[],
  cwd: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string; code: number | null; overflowed: boolean; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    // An argument array and no shell: the pattern and globs reach ripgrep exactly as the model wrote them.
    const child = spawn(rgPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let overflowed = false;
    let timedOut = false;
    // A file swapped for a FIFO after the check above, a stalled network mount: stop rather than wait forever.
    const timer = setTimeout(() => {
      timedOut = true;
      overflowed = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      if (overflowed) return;
      out.push(chunk);
      bytes += chunk.length;
      // Far more than a result can show: stop ripgrep rather than hold a huge output in memory.
      if (bytes > MAX_COLLECTED_BYTES) {
        overflowed = true;
        child.kill();
      }
    });
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.name === "AbortError") reject(new ToolError("Grep was aborted."));
      else reject(new ToolError(`Cannot run ripgrep (${rgPath}): ${error.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString("utf8");
      resolve({
        stdout,
        stderr: Buffer.concat(err).toString("utf8"),
        code: overflowed ? 0 : code,
        overflowed,
        timedOut,
      });
    });
  });
}
