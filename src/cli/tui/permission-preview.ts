import { isAbsolute, resolve } from "node:path";
import { lazyRequire } from "../../fs/lazy-require.js";
import { relativeInside } from "../../fs/real-path.js";
import type { PermissionFacts } from "../../loop/tool.js";
import { displayWidth, fitWidth, graphemes } from "../render/display-width.js";
import type { Style } from "../render/style.js";
import { showControls, terminalJson } from "../render/terminal-text.js";

// Loaded on the first diff shown: most sessions never show one.
const diffLib = lazyRequire<typeof import("diff")>("diff");

/** The call a permission question is about (the fields of `PermissionRequest` the preview reads). */
export interface PreviewCall {
  toolName: string;
  input: Record<string, unknown>;
  /** The call in rule-like form (`Grep(TODO)`), for tools the preview knows nothing about. */
  display: string;
  /** What the tool states about the call; shown for tools the preview knows nothing about. */
  facts?: PermissionFacts;
}

/** The file an Edit or Write call would change, as it is on disk now (see `readPreviewFile`). */
export type PreviewFile =
  | { path: string; exists: true; content: string }
  | { path: string; exists: false }
  /** Not readable for a preview (too large, not a regular file, not text): the diff cannot be shown. */
  | { path: string; exists: true; unreadable: string };

export interface PermissionPreviewOptions {
  /** The working folder: paths inside it are shown relative to it. */
  cwd: string;
  style: Style;
  /** The file Edit or Write would change, read beforehand by `readPreviewFile`; absent: not read. */
  file?: PreviewFile;
  /** Most lines of diff, file or command shown; past it "… N more lines". Default 30. */
  maxLines?: number;
}

/** What a permission question shows about the call: a title and the lines below it. */
export interface PermissionPreview {
  /** One line, safe for the terminal: "Edit file src/a.ts", "Bash command", "Fetch example.com". */
  title: string;
  /**
   * The preview as lines no wider than `width` columns, styled (+ green, - red, numbers dim), with every
   * character from the model, a file or a server escaped (`showControls`): no escape sequence of theirs reaches
   * the terminal. A command is wrapped, never cut at the side; a diff or a file is cut at the side.
   */
  lines(width: number): string[];
}

/** Largest file whose content is diffed for a preview; larger ones are named, not shown. */
export const PREVIEW_MAX_FILE_BYTES = 1024 * 1024;
/** How long a preview's diff may take before a one-line summary replaces it. */
const DIFF_TIMEOUT_MS = 200;
const DIFF_MAX_EDIT_LENGTH = 2_000;

type Row =
  | { kind: "context" | "add" | "remove"; old?: number; new?: number; text: string }
  | { kind: "gap" }
  | { kind: "note"; text: string };

/**
 * What a permission question shows: for Edit, a diff of the file as it is → as it would be, with the real line
 * numbers (old and new) and three lines of context; for Write, the diff against the existing file, or the new
 * file's first lines numbered; for Bash, the command (every line of it) and its description; for WebFetch, the
 * URL and host; for an MCP tool, its server, its name and the arguments as compact JSON; for any other tool, what
 * it states about the call (its paths, command, URL). Pure: the file comes in `options.file`.
 */
export function permissionPreview(call: PreviewCall, options: PermissionPreviewOptions): PermissionPreview {
  const preview = previewOf(call, options);
  // A screen renders on every tick of its spinner: the lines of the last width are kept.
  let last: { width: number; lines: string[] } | undefined;
  return {
    title: preview.title,
    lines(width) {
      if (last?.width !== width) last = { width, lines: preview.lines(width) };
      return [...last.lines];
    },
  };
}

function previewOf(call: PreviewCall, options: PermissionPreviewOptions): PermissionPreview {
  const { style } = options;
  const maxLines = Math.max(1, options.maxLines ?? 30);
  const input = call.input;
  const shownPath = (raw: unknown) => (typeof raw === "string" ? safe(pathForUser(raw, options.cwd)) : "?");

  if ((call.toolName === "Edit" || call.toolName === "Write") && typeof input.file_path === "string") {
    const name = shownPath(input.file_path);
    const file = options.file;
    if (call.toolName === "Write") {
      const content = typeof input.content === "string" ? input.content : "";
      if (!file?.exists) {
        return {
          title: `Create file ${name}`,
          lines: (width) => newFileLines(content, width, maxLines, style),
        };
      }
      if ("unreadable" in file) {
        return {
          title: `Overwrite file ${name}`,
          lines: (width) =>
            noteLines([`${file.unreadable}; its new content:`], width, style).concat(
              newFileLines(content, width, maxLines, style),
            ),
        };
      }
      const rows = diffRows(file.content, content);
      return { title: `Overwrite file ${name}`, lines: (width) => rowLines(rows, width, maxLines, style) };
    }
    const oldString = typeof input.old_string === "string" ? input.old_string : "";
    const newString = typeof input.new_string === "string" ? input.new_string : "";
    if (oldString === "" && !file?.exists) {
      return {
        title: `Create file ${name}`,
        lines: (width) => newFileLines(newString, width, maxLines, style),
      };
    }
    const current = file && "content" in file ? file.content : undefined;
    const after = current !== undefined ? applyEdit(current, input) : undefined;
    if (current !== undefined && after !== undefined) {
      const rows = diffRows(current, after);
      const all =
        input.replace_all === true ? [{ kind: "note", text: "every occurrence is replaced" } as const] : [];
      return {
        title: `Edit file ${name}`,
        lines: (width) => rowLines([...all, ...rows], width, maxLines, style),
      };
    }
    // The file could not be read (or no longer holds the text): the strings themselves, unnumbered.
    const why =
      file && "unreadable" in file
        ? file.unreadable
        : file && !file.exists
          ? "the file does not exist"
          : "old_string is not in the file as it is now";
    const rows: Row[] = [
      { kind: "note", text: `${why}; the change:` },
      ...splitLines(oldString).map((text): Row => ({ kind: "remove", text })),
      ...splitLines(newString).map((text): Row => ({ kind: "add", text })),
    ];
    return { title: `Edit file ${name}`, lines: (width) => rowLines(rows, width, maxLines, style) };
  }

  if (call.toolName === "Bash" && typeof input.command === "string") {
    const command = input.command;
    const description = typeof input.description === "string" ? input.description : undefined;
    const notes: string[] = [];
    if (input.run_in_background === true) notes.push("runs in the background");
    if (typeof input.timeout === "number") notes.push(`timeout ${Math.round(input.timeout / 1000)} s`);
    return {
      title: "Bash command",
      lines: (width) => {
        const lines = wrapped(splitLines(command), width - 2, maxLines, style).map((line) => `  ${line}`);
        if (description) lines.push(...wrapPlain(safe(description), width).map((line) => style.dim(line)));
        if (notes.length > 0) lines.push(style.dim(fitWidth(notes.join(" · "), width)));
        return lines;
      },
    };
  }

  if (call.toolName === "WebFetch" && typeof input.url === "string") {
    const url = input.url;
    const host = hostOf(url);
    const prompt = typeof input.prompt === "string" ? input.prompt : undefined;
    return {
      title: `Fetch ${host ? safe(host) : "a URL"}`,
      lines: (width) => [
        ...wrapPlain(`  ${safe(url)}`, width),
        ...(prompt ? wrapPlain(safe(prompt), width).map((line) => style.dim(line)) : []),
      ],
    };
  }

  const mcp = /^mcp__(.+?)__(.+)$/.exec(call.toolName);
  if (mcp) {
    const [, server = "", tool = ""] = mcp;
    const args = terminalJson(input);
    return {
      title: `MCP tool ${safe(tool)} (server ${safe(server)})`,
      lines: (width) =>
        wrapped([args === "{}" ? "(no arguments)" : args], width - 2, maxLines, style).map(
          (line) => `  ${line}`,
        ),
    };
  }

  // Any other tool: what it states about the call, else its rule-like form.
  const facts = call.facts ?? {};
  const stated: string[] = [];
  for (const path of facts.paths ?? []) {
    if (typeof path.path !== "string") continue;
    const verb = path.access === "write" ? "writes" : path.folder ? "searches" : "reads";
    stated.push(`${verb} ${pathForUser(path.path, options.cwd)}`);
  }
  if (typeof facts.command === "string") stated.push(`runs ${facts.command}`);
  if (typeof facts.url === "string") stated.push(`fetches ${facts.url}`);
  if (stated.length === 0) stated.push(call.display);
  return {
    title: safe(call.toolName),
    lines: (width) => wrapped(stated, width - 2, maxLines, style).map((line) => `  ${line}`),
  };
}

/**
 * Reads the file an Edit or Write call would change, for its preview: only a regular file of at most
 * `PREVIEW_MAX_FILE_BYTES`, read without blocking (a FIFO the model names must not hang the question), as UTF-8.
 * Undefined for other tools. Never throws: a file that cannot be read is `unreadable`, with the reason.
 */
export async function readPreviewFile(
  call: Pick<PreviewCall, "toolName" | "input">,
  cwd: string,
): Promise<PreviewFile | undefined> {
  if (call.toolName !== "Edit" && call.toolName !== "Write") return undefined;
  const raw = call.input.file_path;
  if (typeof raw !== "string" || raw === "") return undefined;
  const path = isAbsolute(raw) ? raw : resolve(cwd, raw);
  const { openRegularFile } = await import("../../fs/open-regular-file.js");
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { path, exists: false };
    return { path, exists: true, unreadable: `it cannot be read (${(error as Error).message})` };
  }
  try {
    if (opened.stats.size > PREVIEW_MAX_FILE_BYTES) {
      return {
        path,
        exists: true,
        unreadable: `it is too large to show a diff (${opened.stats.size} bytes)`,
      };
    }
    const bytes = await opened.handle.readFile();
    const content = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    if (content.includes("\u0000")) return { path, exists: true, unreadable: "it is a binary file" };
    return { path, exists: true, content };
  } catch (error) {
    const why = error instanceof TypeError ? "it is not UTF-8 text" : (error as Error).message;
    return { path, exists: true, unreadable: why };
  } finally {
    await opened.handle.close();
  }
}

/** The file after the edit, as the Edit tool would make it; undefined when old_string is not there. */
function applyEdit(content: string, input: Record<string, unknown>): string | undefined {
  let oldString = typeof input.old_string === "string" ? input.old_string : "";
  let newString = typeof input.new_string === "string" ? input.new_string : "";
  if (oldString === "") return undefined;
  // A CRLF file is edited with CRLF strings (the Edit tool matches line endings the same way).
  if (content.includes("\r\n") && !oldString.includes("\r\n")) {
    oldString = oldString.replace(/\n/g, "\r\n");
    newString = newString.replace(/\n/g, "\r\n");
  }
  const at = content.indexOf(oldString);
  if (at < 0) return undefined;
  if (input.replace_all === true) return content.split(oldString).join(newString);
  return content.slice(0, at) + newString + content.slice(at + oldString.length);
}

/** The rows of a unified diff with three lines of context, numbered; a summary when the diff is too costly. */
function diffRows(before: string, after: string): Row[] {
  if (before === after) return [{ kind: "note", text: "no change to the file's content" }];
  const patch = diffLib().structuredPatch("a", "b", before, after, "", "", {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
    maxEditLength: DIFF_MAX_EDIT_LENGTH,
  });
  if (!patch) return [{ kind: "note", text: "the change is too large to show as a diff" }];
  const rows: Row[] = [];
  patch.hunks.forEach((hunk, i) => {
    if (i > 0) rows.push({ kind: "gap" });
    let old = hunk.oldStart;
    let now = hunk.newStart;
    for (const line of hunk.lines) {
      const sign = line[0];
      const text = line.slice(1).replace(/\r$/, "");
      if (sign === " ") rows.push({ kind: "context", old: old++, new: now++, text });
      else if (sign === "-") rows.push({ kind: "remove", old: old++, text });
      else if (sign === "+") rows.push({ kind: "add", new: now++, text });
      // "\ No newline at end of file" says nothing a user needs here.
    }
  });
  return rows;
}

/**
 * Rows as numbered, coloured lines cut to `width`, at most `maxLines` of them (then "… N more lines"). A column
 * of numbers is there only when some row has one: a new file has no old numbers.
 */
function rowLines(rows: Row[], width: number, maxLines: number, style: Style): string[] {
  const shown = rows.length > maxLines ? rows.slice(0, maxLines - 1) : rows;
  let widest = 1;
  let hasOld = false;
  let hasNew = false;
  for (const row of rows) {
    if (row.kind === "gap" || row.kind === "note") continue;
    if (row.old !== undefined) hasOld = true;
    if (row.new !== undefined) hasNew = true;
    widest = Math.max(widest, String(row.old ?? 0).length, String(row.new ?? 0).length);
  }
  const number = (n: number | undefined) =>
    n === undefined ? " ".repeat(widest) : String(n).padStart(widest);
  const columns = (hasOld ? 1 : 0) + (hasNew ? 1 : 0);
  const gutter = columns * (widest + 1) + 2;
  const lines = shown.map((row) => {
    if (row.kind === "gap") return style.dim(fitWidth(`${" ".repeat(widest)} ⋮`, width));
    if (row.kind === "note") return style.dim(fitWidth(row.text, width));
    const sign = row.kind === "add" ? "+" : row.kind === "remove" ? "-" : " ";
    const text = fitWidth(displayText(row.text), Math.max(0, width - gutter));
    const numbers = [...(hasOld ? [number(row.old)] : []), ...(hasNew ? [number(row.new)] : [])].join(" ");
    const head = columns > 0 ? `${style.dim(numbers)} ` : "";
    if (row.kind === "add") return `${head}${style.green(`${sign} ${text}`)}`;
    if (row.kind === "remove") return `${head}${style.red(`${sign} ${text}`)}`;
    return `${head}${sign} ${text}`;
  });
  if (shown.length < rows.length) lines.push(style.dim(`… ${rows.length - shown.length} more lines`));
  return lines;
}

/** A new file's first lines, numbered and green. */
function newFileLines(content: string, width: number, maxLines: number, style: Style): string[] {
  if (content === "") return [style.dim("(an empty file)")];
  const rows = splitLines(content).map((text, i): Row => ({ kind: "add", new: i + 1, text }));
  return rowLines(rows, width, maxLines, style);
}

function noteLines(notes: string[], width: number, style: Style): string[] {
  return notes.map((note) => style.dim(fitWidth(note, width)));
}

/**
 * Lines wrapped to `width` (never cut at the side: a command must be seen whole), at most `maxLines` rows. A
 * longer text keeps its first rows and its last ones, with how many rows between them are not shown, in
 * yellow: what a long command ends with (after a heredoc, say) is often what it does.
 */
function wrapped(lines: string[], width: number, maxLines: number, style: Style): string[] {
  const rows = lines.flatMap((line) => wrapPlain(displayText(line), Math.max(1, width)));
  if (rows.length <= maxLines) return rows;
  const tail = maxLines >= 8 ? Math.floor(maxLines / 3) : 0;
  const head = Math.max(0, maxLines - 1 - tail);
  const hidden = rows.length - head - tail;
  return [
    ...rows.slice(0, head),
    style.yellow(`… ${hidden} more ${hidden === 1 ? "line" : "lines"} not shown`),
    ...rows.slice(rows.length - tail),
  ];
}

/** Hard-wraps plain text at `width` terminal cells (wide characters count two; a cluster is never split). */
function wrapPlain(text: string, width: number): string[] {
  if (displayWidth(text) <= width) return [text];
  const rows: string[] = [];
  let row = "";
  let used = 0;
  for (const g of graphemes(text)) {
    const w = displayWidth(g);
    if (used + w > width && row !== "") {
      rows.push(row);
      row = "";
      used = 0;
    }
    row += g;
    used += w;
  }
  rows.push(row);
  return rows;
}

/**
 * Characters that show as nothing (zero-width spaces and joiners, word joiners, the BOM, a soft hyphen, line and
 * paragraph separators): in a command the user approves, `rm -rf /tmp/a\u200b` must not look like `rm -rf /tmp/a`.
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u2028\u2029\u2060-\u2064\ufeff]/g;

/** A line of model or file text for the terminal: controls and invisible characters escaped, tabs as spaces. */
function displayText(text: string): string {
  return showInvisible(showControls(text)).replace(/\t/g, "    ");
}

function safe(text: string): string {
  return showInvisible(showControls(text)).replace(/[\t\n]/g, " ");
}

function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => line.replace(/\r$/, ""));
}

/** A path inside the working folder relative to it, any other as it is. */
function pathForUser(raw: string, cwd: string): string {
  const absolute = isAbsolute(raw) ? raw : resolve(cwd, raw);
  const inside = relativeInside(cwd, absolute);
  return inside === undefined || inside === "" ? absolute : inside;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}
