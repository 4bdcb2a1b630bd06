import { join } from "node:path";
import { legacyProjectDir, projectDir } from "../context/index.js";
import type { Message } from "../messages/index.js";
import {
  type LoadedSession,
  loadSession,
  lockSession,
  resumeMessages,
  type SessionLock,
  SessionLog,
} from "../session/index.js";
import type { Session, SessionConfig } from "./build-session.js";
import { latestSession } from "./latest-session.js";

export interface SessionLogChoice {
  /** `-r <file>`: continue this session file. */
  resume?: string | undefined;
  /** `-c`: continue the newest session of this folder. */
  continueSession?: boolean;
  /** `--no-session-log`: write nothing (ignored when resuming, which appends to the resumed file). */
  noSessionLog?: boolean;
}

/** The folder of a workspace's session files: `~/.mitsu/projects/<project>/sessions`. */
export function sessionsDir(where: { cwd: string; home: string }): string {
  return join(projectDir(where), "sessions");
}

/** Where sessions were written before project folders had unique names: still read by `-c`, never written. */
function legacySessionsDir(where: { cwd: string; home: string }): string {
  return join(legacyProjectDir(where), "sessions");
}

/** A session file named by `-r` or found by `-c`, loaded. */
export interface ResumedSession {
  path: string;
  loaded: LoadedSession;
  /**
   * The file's lock, taken before it was read; or who holds it — another mitsu is appending to it, and this run
   * continues in a copy (`SessionLog.fork`).
   */
  lock: SessionLock | { heldBy: unknown };
  /** Continue in a copy in this folder instead of appending to `path` (a session found under an old slug). */
  moveTo?: string;
}

/**
 * Loads the session to continue (`-r <file>`, or with `-c` the newest of this folder, under its current or its
 * old project folder), before the session is built: its system prompt is the one to send again. The file is
 * locked first; when another live mitsu holds it, a notice says that this run continues in a copy. Undefined
 * for a new session.
 */
export function loadResumedSession(
  choice: SessionLogChoice,
  where: { cwd: string; home: string },
  warn: (message: string) => void,
): ResumedSession | undefined {
  const current = sessionsDir(where);
  const legacy = legacySessionsDir(where);
  const path =
    choice.resume ?? (choice.continueSession ? latestSession([current, legacy], where.cwd) : undefined);
  if (choice.continueSession && !path) warn("no earlier session in this folder; starting a new one");
  if (!path) return undefined;
  const lock = lockSession(path);
  let loaded: LoadedSession;
  try {
    loaded = loadSession(path);
  } catch (error) {
    if (!("heldBy" in lock)) lock.release();
    throw error;
  }
  if ("heldBy" in lock) {
    const holder = lock.heldBy as { pid?: number } | undefined;
    warn(
      `${path} is in use by another mitsu${holder?.pid !== undefined ? ` (process ${holder.pid})` : ""}; this session continues in a copy of its history`,
    );
  } else if (loaded.truncatedTail) {
    warn(`the last line of ${path} was cut (the process was killed); it was dropped`);
  }
  const fromLegacy = !choice.resume && path.startsWith(`${legacy}/`) && legacy !== current;
  return { path, loaded, lock, ...(fromLegacy ? { moveTo: current } : {}) };
}

/** The part of the session config a resumed session decides: its system prompt and when it was built. */
export function resumedConfig(resumed: ResumedSession | undefined): Pick<SessionConfig, "resumed"> {
  const header = resumed?.loaded.header;
  if (!header?.system) return {};
  return { resumed: { system: header.system, createdAt: new Date(header.createdAt) } };
}

/**
 * The transcript to start from and the log to append to: a resumed session, whose pending tool calls are
 * answered as interrupted — those answers are written to the log at once, so the file and the transcript stay
 * the same — or a new log (none with `noSessionLog`). A resumed file in use elsewhere, or found under the old
 * project folder, is continued in a copy (its lock, if held, is released: the copy is written instead).
 * Close the log (`SessionLog.close`) when done: it holds the file's lock.
 */
export function openSessionLog(
  resumed: ResumedSession | undefined,
  choice: SessionLogChoice,
  session: Session,
  where: { cwd: string; home: string },
): { history: Message[]; log: SessionLog | undefined } {
  if (resumed) {
    const { path, loaded, lock } = resumed;
    let log: SessionLog;
    if ("heldBy" in lock) log = SessionLog.fork(path, loaded);
    else if (resumed.moveTo !== undefined) {
      lock.release();
      log = SessionLog.fork(path, loaded, { dir: resumed.moveTo });
    } else log = SessionLog.reopen(path, loaded.header, lock);
    const history = resumeMessages(loaded.messages);
    for (const message of history.slice(loaded.messages.length)) log.append(message);
    return { history, log };
  }
  if (choice.noSessionLog) return { history: [], log: undefined };
  return { history: [], log: newSessionLog(session, where) };
}

/** A new session file for this workspace (also for `/clear`). */
export function newSessionLog(session: Session, where: { cwd: string; home: string }): SessionLog {
  return SessionLog.create(sessionsDir(where), {
    cwd: where.cwd,
    model: `${session.provider.api}:${session.model}`,
    system: session.context.system,
  });
}

/** What a run opened and must close: the resumed file's lock, and the log written to. */
export interface OpenedLogs {
  resumed: ResumedSession | undefined;
  log: SessionLog | undefined;
}

/** Releases the session files' locks (idempotent): at the end of a run, or when `/clear` starts a new log. */
export function closeSessionLogs(opened: OpenedLogs): void {
  opened.log?.close();
  const lock = opened.resumed?.lock;
  if (lock && !("heldBy" in lock)) lock.release();
}
