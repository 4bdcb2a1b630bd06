import type { Message } from "../messages/index.js";
import { type LoadedSession, loadSession } from "./load-session.js";
import { resumeMessages } from "./resume-messages.js";
import { SessionLog } from "./session-log.js";

/** A session file opened to continue: its transcript, ready to extend, and its log, reopened for appending. */
export interface ResumedSession {
  path: string;
  loaded: LoadedSession;
  /** The transcript to continue from: the loaded one, with any call left pending answered (`resumeMessages`). */
  history: Message[];
  log: SessionLog;
}

/**
 * Opens a session file to continue it — the one place resume happens. The pending calls of its last message
 * are answered from what the log says of them, and those answers are appended to the log at once, so the file
 * and the transcript stay the same. Throws (naming the file) when it cannot be read or is of a newer format.
 */
export function resumeSession(path: string): ResumedSession {
  return continueSession(path, loadSession(path));
}

/** `resumeSession` for a file already loaded (its header decides how the agent is built before it continues). */
export function continueSession(path: string, loaded: LoadedSession): ResumedSession {
  const log = SessionLog.reopen(path, loaded.header);
  const history = resumeMessages(loaded.messages, loaded.header.version >= 2 ? loaded.calls : undefined);
  for (const message of history.slice(loaded.messages.length)) log.append(message);
  return { path, loaded, history, log };
}
