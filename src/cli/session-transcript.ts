import { join } from "node:path";
import { memoryDir } from "../context/index.js";
import type { Message } from "../messages/index.js";
import { type LoadedSession, loadSession, resumeMessages, SessionLog } from "../session/index.js";
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
  return join(memoryDir(where), "..", "sessions");
}

/** A session file named by `-r` or found by `-c`, loaded. */
export interface ResumedSession {
  path: string;
  loaded: LoadedSession;
}

/**
 * Loads the session to continue (`-r <file>`, or the newest of this folder with `-c`), before the session is
 * built: its system prompt is the one to send again. Undefined for a new session.
 */
export function loadResumedSession(
  choice: SessionLogChoice,
  where: { cwd: string; home: string },
  warn: (message: string) => void,
): ResumedSession | undefined {
  const path = choice.resume ?? (choice.continueSession ? latestSession(sessionsDir(where)) : undefined);
  if (choice.continueSession && !path) warn("no earlier session in this folder; starting a new one");
  if (!path) return undefined;
  const loaded = loadSession(path);
  if (loaded.truncatedTail) warn(`the last line of ${path} was cut (the process was killed); it was dropped`);
  return { path, loaded };
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
 * the same — or a new log (none with `noSessionLog`).
 */
export function openSessionLog(
  resumed: ResumedSession | undefined,
  choice: SessionLogChoice,
  session: Session,
  where: { cwd: string; home: string },
): { history: Message[]; log: SessionLog | undefined } {
  if (resumed) {
    const { path, loaded } = resumed;
    const log = SessionLog.reopen(path, loaded.header);
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
