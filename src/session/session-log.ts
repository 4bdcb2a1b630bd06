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
import type { Message, TextBlock } from "../messages/index.js";

const NEWLINE = 0x0a;

/** The first line of a session file. */
export interface SessionHeader {
  type: "session";
  version: 1;
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

export type SessionLine = SessionHeader | { type: "message"; message: Message };

/**
 * An append-only JSONL transcript: one header line, then one line per message exactly as sent. Each append
 * is written (and flushed to the OS) before it returns, so the loop's `onMessage` hook guarantees that a
 * message is on disk before the next request: a killed process resumes from the file.
 */
export class SessionLog {
  private constructor(
    readonly path: string,
    readonly header: SessionHeader,
  ) {}

  /** Creates `<dir>/<date>-<id>.jsonl` with its header line. */
  static create(
    dir: string,
    info: { cwd: string; model: string; system?: TextBlock[]; now?: Date },
  ): SessionLog {
    mkdirSync(dir, { recursive: true });
    const now = info.now ?? new Date();
    const id = randomUUID();
    const header: SessionHeader = {
      type: "session",
      version: 1,
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
   * and the file would no longer load.
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
