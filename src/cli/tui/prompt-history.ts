import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";

/** Most prompts kept (the file is cut back to this many once it holds twice as many). */
export const HISTORY_LIMIT = 500;
/** A longer prompt (a large paste) is not kept: the history is for recalling what was typed. */
const MAX_PROMPT_CHARS = 20_000;
/** Only the file's end is read: a file grown by other means never slows the start. */
const MAX_READ_BYTES = 2 * 1024 * 1024;

/**
 * The prompts typed in one project, across sessions: `<project dir>/history.jsonl`, one JSON object a line
 * (`{"prompt": "…", "at": "<ISO time>"}`), appended as each prompt is sent. Reading skips a line it cannot
 * parse (a crash mid-write, a hand edit) and keeps the rest; nothing here throws — a history that cannot be
 * read or written is empty, never a failed start.
 */
export interface PromptHistory {
  /** The prompts, oldest first. */
  readonly prompts: readonly string[];
  /** Appends a prompt (the same as the last one is not repeated). */
  add(prompt: string): void;
}

export function openPromptHistory(file: string): PromptHistory {
  const prompts = readHistory(file);
  let lines = prompts.length;
  return {
    prompts,
    add(prompt) {
      const text = prompt.trim();
      if (text === "" || text.length > MAX_PROMPT_CHARS || prompts.at(-1) === text) return;
      prompts.push(text);
      if (prompts.length > HISTORY_LIMIT) prompts.splice(0, prompts.length - HISTORY_LIMIT);
      const line = `${JSON.stringify({ prompt: text, at: new Date().toISOString() })}\n`;
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        if (++lines > 2 * HISTORY_LIMIT) {
          // Cut back to the file's own last lines (another mitsu in this project appends too, and each line
          // keeps its time): written beside, then renamed over, so a crash leaves the old file or the new one.
          const kept = [...readLines(file), line.trimEnd()].slice(-HISTORY_LIMIT);
          const tmp = `${file}.${process.pid}.tmp`;
          writeFileSync(tmp, `${kept.join("\n")}\n`, { mode: 0o600 });
          renameSync(tmp, file);
          lines = kept.length;
        } else appendFileSync(file, line, { mode: 0o600 });
      } catch {
        // A read-only home: the prompt is still recalled in this session.
      }
    },
  };
}

function readHistory(file: string): string[] {
  const prompts: string[] = [];
  for (const line of readLines(file)) {
    try {
      const entry = JSON.parse(line) as { prompt?: unknown };
      if (typeof entry.prompt === "string" && entry.prompt.trim() !== "") prompts.push(entry.prompt);
    } catch {
      // A torn or foreign line: skipped, the others kept.
    }
  }
  return prompts.slice(-HISTORY_LIMIT);
}

/** The file's non-blank lines, from at most its last `MAX_READ_BYTES`; none when it cannot be read. */
function readLines(file: string): string[] {
  let text: string;
  try {
    const fd = openSync(file, "r");
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, MAX_READ_BYTES);
      const bytes = Buffer.alloc(length);
      readSync(fd, bytes, 0, length, size - length);
      text = bytes.toString("utf8");
      // Started mid-file: the first line is a piece of one.
      if (length < size) text = text.slice(text.indexOf("\n") + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  return text.split("\n").filter((line) => line.trim() !== "");
}
