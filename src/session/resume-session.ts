import type { Message } from "../messages/index.js";
import { checkSessionFile } from "./check-session-file.js";
import { type LoadedSession, loadSession } from "./load-session.js";
import { resumeMessages } from "./resume-messages.js";
import { type LockHolder, lockSession, type SessionLock } from "./session-lock.js";
import { SessionLog } from "./session-log.js";
import { settledMessages } from "./settled-messages.js";

/** A session file loaded to be continued, with its lock taken before it was read. */
export interface SessionToResume {
  path: string;
  loaded: LoadedSession;
  /**
   * The file's lock; or who holds it — another mitsu is appending to it, and this one continues in a copy
   * (`SessionLog.fork`).
   */
  lock: SessionLock | { heldBy: LockHolder | undefined };
  /** Continue in a copy in this folder instead of appending to `path` (a session found under an old folder). */
  moveTo?: string;
}

/** A session opened to continue: its transcript, ready to extend, and the log that extends it. */
export interface ResumedSession {
  /** The file continued: `path`, or the copy made when it was in use or under an old folder. */
  path: string;
  loaded: LoadedSession;
  /** The transcript to continue from: the loaded one, with any call left pending answered (`resumeMessages`). */
  history: Message[];
  /** Holds the file's lock until `close()`. */
  log: SessionLog;
}

/**
 * Locks, then loads, a session file to continue (so no other writer adds a line in between). When another
 * live mitsu holds the lock, the result says so (`lock.heldBy`) and `continueSession` makes a copy. Throws
 * (naming the file and the line) when it cannot be read, is damaged, or is of a newer format.
 */
export function loadSessionToResume(path: string, options: { moveTo?: string } = {}): SessionToResume {
  // Before anything is made beside it (the lock file): is it a session at all?
  checkSessionFile(path);
  const lock = lockSession(path);
  let loaded: LoadedSession;
  try {
    loaded = loadSession(path);
  } catch (error) {
    if (!("heldBy" in lock)) lock.release();
    throw error;
  }
  return { path, loaded, lock, ...(options.moveTo !== undefined ? { moveTo: options.moveTo } : {}) };
}

/**
 * Continues a loaded session — the one place resume happens: appends to the file (or to a copy, when it is in
 * use elsewhere or lies under an old folder; a copy of a file in use holds its finished turns only, see
 * `settledMessages`); the pending calls of its last message are answered from what
 * the log says of them (`resumeMessages`), and those answers are appended at once, so the file and the
 * transcript stay the same.
 */
export function continueSession(toResume: SessionToResume): ResumedSession {
  const { path, lock } = toResume;
  let { loaded } = toResume;
  let log: SessionLog;
  if ("heldBy" in lock) {
    // The other mitsu may be in the middle of a turn: its prompt and calls stay its own.
    loaded = { ...loaded, messages: settledMessages(loaded.messages) };
    log = SessionLog.fork(path, loaded);
  } else if (toResume.moveTo !== undefined) {
    lock.release();
    log = SessionLog.fork(path, loaded, { dir: toResume.moveTo });
  } else log = SessionLog.reopen(path, loaded.header, lock);
  const history = resumeMessages(loaded.messages, loaded.header.version >= 2 ? loaded.calls : undefined);
  for (const message of history.slice(loaded.messages.length)) log.append(message);
  return { path: log.path, loaded, history, log };
}

/** Locks, loads and continues a session file in one step (see `loadSessionToResume`, `continueSession`). */
export function resumeSession(path: string): ResumedSession {
  return continueSession(loadSessionToResume(path));
}
