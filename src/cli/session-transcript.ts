import { join } from "node:path";
import { memoryDir } from "../context/index.js";
import type { Message } from "../messages/index.js";
import { loadSession, resumeMessages, SessionLog } from "../session/index.js";
import type { Session } from "./build-session.js";
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

/**
 * The transcript to start from and the log to append to: a resumed session (`-r`, `-c`), whose pending tool
 * calls are answered as interrupted — those answers are written to the log at once, so the file and the
 * transcript stay the same — or a new log (none with `noSessionLog`).
 */
export function openSessionLog(
  choice: SessionLogChoice,
  session: Session,
  where: { cwd: string; home: string },
  warn: (message: string) => void,
): { history: Message[]; log: SessionLog | undefined } {
  const dir = sessionsDir(where);
  const path = choice.resume ?? (choice.continueSession ? latestSession(dir) : undefined);
  if (choice.continueSession && !path) warn("no earlier session in this folder; starting a new one");
  if (path) {
    const loaded = loadSession(path);
    if (loaded.truncatedTail)
      warn(`the last line of ${path} was cut (the process was killed); it was dropped`);
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
  });
}
