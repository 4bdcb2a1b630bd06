import { randomUUID } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import type { Message, TextBlock, ToolResultBlock, Usage } from "../messages/index.js";
import { type LockHolder, lockSession, type SessionLock } from "./session-lock.js";

const NEWLINE = 0x0a;

/**
 * The newest session file format this mitsu writes and reads. 1: header and messages. 2: adds `tool-start`,
 * `tool-result`, `compaction` and `subagent` lines. 3: a `message` line does not repeat a tool result that a
 * `tool-result` line since the previous message holds: its block is `{"type": "tool_result", "tool_use_id": …,
 * "logged": true}` (see `LoggedResultRef`), which `loadSession` replaces with that line's result, so a large
 * result is written once. A file of a newer format is refused with a message that says so (see
 * `loadSession`); every older format still loads.
 */
export const SESSION_FORMAT = 3;

/**
 * In a format-3 `message` line, a tool_result block written already by a `tool-result` line since the previous
 * `message` (or `compaction` / `rewind`) line, byte for byte: the loader puts that result here.
 */
export interface LoggedResultRef {
  type: "tool_result";
  tool_use_id: string;
  logged: true;
  /** The message's cache breakpoint on this block, which the logged result does not have. */
  cache_control?: ToolResultBlock["cache_control"];
}

/**
 * Whether `block` is `logged` as sent: the same fields with the same values (the content is the same string or
 * array, not a copy), plus at most a `cache_control` — no serialising of a result that may be megabytes.
 */
function sameResult(block: ToolResultBlock, logged: ToolResultBlock | undefined): boolean {
  if (!logged) return false;
  if (block === logged) return true;
  const keys = Object.keys(block).filter((key) => key !== "cache_control");
  if (keys.length !== Object.keys(logged).length) return false;
  return keys.every((key) => block[key as keyof ToolResultBlock] === logged[key as keyof ToolResultBlock]);
}

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
  /** Set on a copy made because the session was in use elsewhere (`SessionLog.fork`): the original's id. */
  forkedFrom?: string;
  /**
   * Set on a sub-agent's transcript: the session whose Task call (`toolUseId`) started it, and the agent type.
   * Such a file is not a conversation to continue: `latestSession` passes over it.
   */
  parent?: { session: string; toolUseId: string; agent?: string };
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
 * - `rewind` (2): the conversation went back to an earlier user prompt (`/rewind`): the transcript is its
 *   first `keep` messages from here on (the prompt itself and all after it are cut; the earlier lines stay in
 *   the file, so nothing is deleted).
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
      /** Why and how the history was trimmed instead of summarised (reason "trimmed"). */
      notice?: string;
    }
  | { type: "subagent"; toolUseId: string; path: string }
  | { type: "rewind"; keep: number };

export type SessionLine = SessionHeader | SessionEntry;

/** The session file is appended to by another live process (see `lockSession`). */
export class SessionInUseError extends Error {
  override name = "SessionInUseError";
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      `Session ${path} is in use by ${holder ? `mitsu process ${holder.pid} on ${holder.host} since ${holder.since}` : "another mitsu process"}`,
    );
  }
}

/**
 * A folder for session files, private to the user: created 0700, and tightened to 0700 when an older version
 * left it readable by others (transcripts hold code, file contents and command output).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

/** Removes the group and other permission bits of a file or folder this user owns. */
function tighten(path: string, mode: number): void {
  try {
    const stats = statSync(path);
    const owned = process.getuid === undefined || stats.uid === process.getuid();
    if (owned && (stats.mode & 0o077) !== 0) chmodSync(path, mode);
  } catch {
    // gone, or not ours to change: it stays as it is
  }
}

/**
 * The file's last line when the file does not end with a newline (its start and text), read backwards 64 KB at a
 * time; undefined when the file is empty or ends with a newline.
 */
function lastLine(path: string): { start: number; text: string } | undefined {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    if (byte[0] === NEWLINE) return undefined;
    const chunks: Buffer[] = [];
    let end = size;
    for (;;) {
      const from = Math.max(0, end - 65_536);
      const chunk = Buffer.alloc(end - from);
      readSync(fd, chunk, 0, chunk.length, from);
      const newline = chunk.lastIndexOf(NEWLINE);
      if (newline !== -1) {
        chunks.unshift(chunk.subarray(newline + 1));
        return { start: from + newline + 1, text: Buffer.concat(chunks).toString("utf8") };
      }
      chunks.unshift(chunk);
      if (from === 0) return { start: 0, text: Buffer.concat(chunks).toString("utf8") };
      end = from;
    }
  } finally {
    closeSync(fd);
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function stampOf(now: Date): string {
  return now.toISOString().replaceAll(":", "-").replace(/\..*$/, "");
}

/**
 * An append-only JSONL transcript: one header line, then one line per entry (`SessionEntry`). Each append is
 * written (and flushed to the OS) before it returns, so the loop's session-log hooks guarantee that a message
 * is on disk before the next request and a tool result as soon as it is settled: a killed process resumes
 * from the file.
 *
 * One writer per file: a log holds the file's lock (`lockSession`) from `create` / `reopen` until `close()`
 * or the end of the process. Files are 0600 in 0700 folders.
 */
export class SessionLog {
  private constructor(
    readonly path: string,
    readonly header: SessionHeader,
    private readonly lock: SessionLock | undefined,
  ) {}

  /** The file `create` makes for session `id` at `now`: hooks that fire before it exists are told where it will be. */
  static pathFor(dir: string, id: string, now: Date): string {
    return join(dir, `${stampOf(now)}-${id.slice(0, 8)}.jsonl`);
  }

  /** Creates `<dir>/<date>-<id>.jsonl` with its header line, in the current format. */
  static create(
    dir: string,
    info: {
      cwd: string;
      model: string;
      system?: TextBlock[];
      now?: Date;
      parent?: SessionHeader["parent"];
      /** The session's id (default: a new random UUID), e.g. one already handed to hooks. */
      id?: string;
    },
  ): SessionLog {
    const now = info.now ?? new Date();
    const id = info.id ?? randomUUID();
    const header: SessionHeader = {
      type: "session",
      version: SESSION_FORMAT,
      id,
      cwd: info.cwd,
      model: info.model,
      createdAt: now.toISOString(),
      ...(info.system ? { system: info.system } : {}),
      ...(info.parent ? { parent: info.parent } : {}),
    };
    return SessionLog.start(SessionLog.pathFor(dir, id, now), header, []);
  }

  /** A new file with `header` and `messages`, locked; the lines are written at once, then synced. */
  private static start(path: string, header: SessionHeader, messages: readonly Message[]): SessionLog {
    ensurePrivateDir(dirname(path));
    const lock = lockSession(path);
    if ("heldBy" in lock) throw new SessionInUseError(path, lock.heldBy);
    const lines = [header, ...messages.map((message) => ({ type: "message", message }))];
    try {
      const fd = openSync(path, "wx", 0o600);
      try {
        appendFileSync(fd, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      lock.release();
      throw error;
    }
    return new SessionLog(path, header, lock);
  }

  /**
   * Reopens an existing file for appending (after `loadSession`), taking its lock (or using `held`, taken before
   * loading so that no other writer can add a line in between): a `SessionInUseError` when another live process
   * holds it (`fork` then makes a copy to continue in). A last line cut by a kill (no
   * newline at the end; `loadSession` dropped it) is cut off first: appended after it, the next message would
   * share its line and the file would no longer load; a last line whole but for its newline (which `loadSession`
   * loaded) gets its newline instead. A file (or folder) left readable by others is made private.
   */
  static reopen(path: string, header: SessionHeader, held?: SessionLock): SessionLog {
    const lock = held ?? lockSession(path);
    if ("heldBy" in lock) throw new SessionInUseError(path, lock.heldBy);
    try {
      // Only the last line is read (a 100 MB session is not read again to check its end).
      const last = lastLine(path);
      if (last !== undefined) {
        // Killed between a line and its newline: the line is whole (a prefix of a JSON object never parses)
        // and `loadSession` loaded it, so it is finished, not cut — cutting it would drop a message the resumed
        // transcript holds (or, for a header alone, leave a file with no header).
        if (parsesAsJson(last.text)) appendFileSync(path, "\n");
        else truncateSync(path, last.start);
      }
      tighten(path, 0o600);
      tighten(dirname(path), 0o700);
    } catch (error) {
      lock.release();
      throw error;
    }
    return new SessionLog(path, header, lock);
  }

  /**
   * A new session file beside `from` (or in `dir`), holding a copy of its history (`loaded`), to continue in
   * when `from` is in use by another process, or lies in a folder no longer written to: its header is the
   * original's (the same system prompt, so the prompt cache holds) with a new id and time, and `forkedFrom`
   * naming the original.
   */
  static fork(
    from: string,
    loaded: { header: SessionHeader; messages: readonly Message[] },
    options: { dir?: string; now?: Date } = {},
  ): SessionLog {
    const now = options.now ?? new Date();
    const id = randomUUID();
    const header: SessionHeader = {
      ...loaded.header,
      id,
      createdAt: now.toISOString(),
      forkedFrom: loaded.header.id,
    };
    const dir = options.dir ?? dirname(from);
    return SessionLog.start(join(dir, `${stampOf(now)}-${id.slice(0, 8)}.jsonl`), header, loaded.messages);
  }

  /**
   * The results of the `tool-result` lines written since the last message (or compaction, or rewind) line, by
   * tool_use_id, so that the message that carries the same blocks refers to them (format 3); a block whose
   * content differs (a hook rewrote it) is written whole.
   */
  private logged = new Map<string, ToolResultBlock>();

  append(message: Message): void {
    const logged = this.logged;
    this.logged = new Map();
    if (this.header.version < 3 || message.role !== "user" || logged.size === 0) {
      this.write({ type: "message", message });
      return;
    }
    // Only the block logged is replaced (give or take the request's cache breakpoint, which the message gets after
    // the result was logged): what the loader restores is exactly what was sent.
    const content = message.content.map((block) => {
      if (block.type !== "tool_result" || !sameResult(block, logged.get(block.tool_use_id))) return block;
      const ref: LoggedResultRef = { type: "tool_result", tool_use_id: block.tool_use_id, logged: true };
      return block.cache_control ? { ...ref, cache_control: block.cache_control } : ref;
    });
    this.write({ type: "message", message: { ...message, content } as Message });
  }

  /** Appends a format-2 entry; nothing in a format-1 file (whose readers would refuse the line). */
  appendEntry(entry: Exclude<SessionEntry, { type: "message" }>): void {
    if (this.header.version < 2) return;
    if (entry.type === "tool-result") this.logged.set(entry.result.tool_use_id, entry.result);
    else if (entry.type === "compaction" || entry.type === "rewind") this.logged = new Map();
    this.write(entry);
  }

  /** Releases the file's lock; appending after `close` is still possible but no longer exclusive. Idempotent. */
  close(): void {
    this.lock?.release();
  }

  /**
   * Appends one line and syncs it. The text goes to `writeSync` as a string, encoded into memory freed as soon as
   * it is written, where `appendFileSync` makes a Buffer of it (a tool result's line is 100 KB and more) that
   * waits for a full GC to be freed.
   */
  private write(line: SessionLine): void {
    const text = `${JSON.stringify(line)}\n`;
    const fd = openSync(this.path, "a", 0o600);
    try {
      const written = writeSync(fd, text);
      // A short write (a full disk, a signal): the rest as bytes, as appendFileSync would.
      if (written < Buffer.byteLength(text)) writeRest(fd, Buffer.from(text).subarray(written));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** Writes all of `bytes` at the end of `fd`, however many writes that takes. */
function writeRest(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}
