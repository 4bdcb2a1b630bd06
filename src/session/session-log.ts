import { randomUUID } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  truncateSync,
} from "node:fs";
import { join } from "node:path";
import type { Message, TextBlock, ToolResultBlock, Usage } from "../messages/index.js";

const NEWLINE = 0x0a;

/**
 * The newest session file format this mitsu writes and reads. 1: header and messages. 2: adds `tool-start`,
 * `tool-result`, `compaction` and `subagent` lines. A file of a newer format is refused with a message that
 * says so (see `loadSession`); every older format still loads.
 */
export const SESSION_FORMAT = 2;

/** The first line of a session file. */
export interface SessionHeader {
  type: "session";
  /** The format of the lines that follow; see `SESSION_FORMAT`. */
  version: number;
  id: string;
  cwd: string;
  model: string;
  createdAt: string;
  /**
   * The `system` field the session's requests were sent with: a resumed session sends it again, byte for
   * byte, so the prompt cache still holds (rebuilt, its git snapshot would differ). Absent in older files.
   */
  system?: TextBlock[];
}

/**
 * One line of a session file after the header. A line's meaning never changes within a format; a new kind
 * of line is a new format (`SESSION_FORMAT`), so an older mitsu refuses the file instead of misreading it.
 *
 * - `message` (1): a message entered the transcript, exactly as sent.
 * - `tool-start` (2): a tool's `run` is about to start (validation and permission passed): it may have had
 *   effects from here on, so a call with this line and no result resumes as "state unknown".
 * - `tool-result` (2): a call's result, written the moment it is settled — before the turn's other calls end
 *   and before its `message` line, so a kill after a finished Write does not lose that it finished.
 * - `compaction` (2): the history was replaced (the loop's `replaceHistory`): the transcript is `messages` from
 *   here on; the messages that follow are appended to it. `before` counts the messages it replaced (the earlier
 *   lines stay in the file); `summary`, `tokensBefore` / `tokensAfter` (estimated request sizes) and `usage`
 *   (the summary call's) are there when a compaction wrote them.
 * - `subagent` (2): a sub-agent was started by the call `toolUseId`; its own transcript is the session file
 *   `path` (relative to this file's folder).
 */
export type SessionEntry =
  | { type: "message"; message: Message }
  | { type: "tool-start"; toolUseId: string; name: string }
  | { type: "tool-result"; result: ToolResultBlock }
  | {
      type: "compaction";
      reason: string;
      before: number;
      messages: Message[];
      summary?: string;
      tokensBefore?: number;
      tokensAfter?: number;
      usage?: Usage;
    }
  | { type: "subagent"; toolUseId: string; path: string };

export type SessionLine = SessionHeader | SessionEntry;

/**
 * An append-only JSONL transcript: one header line, then one line per entry. Each append is written (and
 * flushed to the OS) before it returns, so the loop's session-log hooks guarantee that a message is on disk
 * before the next request and a tool result as soon as it is settled: a killed process resumes from the file.
 */
export class SessionLog {
  private constructor(
    readonly path: string,
    readonly header: SessionHeader,
  ) {}

  /** Creates `<dir>/<date>-<id>.jsonl` with its header line, in the current format. */
  static create(
    dir: string,
    info: { cwd: string; model: string; system?: TextBlock[]; now?: Date },
  ): SessionLog {
    mkdirSync(dir, { recursive: true });
    const now = info.now ?? new Date();
    const id = randomUUID();
    const header: SessionHeader = {
      type: "session",
      version: SESSION_FORMAT,
      id,
      cwd: info.cwd,
      model: info.model,
      createdAt: now.toISOString(),
      ...(info.system ? { system: info.system } : {}),
    };
    const stamp = now.toISOString().replaceAll(":", "-").replace(/\..*$/, "");
    const log = new SessionLog(join(dir, `${stamp}-${id.slice(0, 8)}.jsonl`), header);
    log.write(header);
    return log;
  }

  /**
   * Reopens an existing file for appending (after `loadSession`). A last line cut by a kill (no newline at the
   * end; `loadSession` dropped it) is cut off first: appended after it, the next message would share its line
   * and the file would no longer load. A file of an older format stays in it: only its kinds of line are added.
   */
  static reopen(path: string, header: SessionHeader): SessionLog {
    const bytes = readFileSync(path);
    if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) {
      truncateSync(path, bytes.lastIndexOf(NEWLINE) + 1);
    }
    return new SessionLog(path, header);
  }

  append(message: Message): void {
    this.write({ type: "message", message });
  }

  /** Appends a format-2 entry; nothing in a format-1 file (whose readers would refuse the line). */
  appendEntry(entry: Exclude<SessionEntry, { type: "message" }>): void {
    if (this.header.version < 2) return;
    this.write(entry);
  }

  private write(line: SessionLine): void {
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
    const fd = openSync(this.path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
