import type { Message } from "../messages/index.js";
import {
  continueSession,
  findSession,
  latestSession,
  loadSessionToResume,
  resumeMessages,
  type SessionLog,
  type SessionToResume,
} from "../session/index.js";
import type { SessionOptions } from "./coding-agent.js";
import { foreignSessionNotice } from "./foreign-session-notice.js";
import { isOwnSessionFile } from "./own-session-file.js";
import { legacySessionsDir } from "./sessions-dir.js";

/**
 * The session file to continue, locked and loaded (`-r <file>`, or with `-c` the newest of this folder, under
 * its current or its old project folder); undefined for a new session. A file another live mitsu appends to
 * is continued in a copy, with a notice.
 */
export function findSessionToResume(
  choice: SessionOptions,
  dir: string,
  where: { cwd: string; home: string },
  warn: (message: string) => void,
): SessionToResume | undefined {
  const legacy = legacySessionsDir(where);
  const path = choice.resume
    ? findSession(dir, choice.resume, where.cwd)
    : choice.continue
      ? latestSession([dir, legacy], where.cwd)
      : undefined;
  if (choice.continue && !choice.resume && !path)
    warn("no earlier session in this folder; starting a new one");
  if (!path) return undefined;
  // A session found under the old, non-unique project folder is continued in a copy in the current one.
  const fromLegacy = !choice.resume && path.startsWith(`${legacy}/`) && legacy !== dir;
  // So is a session file from elsewhere (a repository's), said first; its checkpoints stay behind unused.
  const foreign = !isOwnSessionFile(path, where.home, [dir, legacy]);
  if (foreign) warn(foreignSessionNotice(path, dir));
  const toResume = loadSessionToResume(path, fromLegacy || foreign || choice.fork ? { moveTo: dir } : {});
  if ("heldBy" in toResume.lock) {
    const holder = toResume.lock.heldBy;
    warn(
      `${path} is in use by another mitsu${holder?.pid !== undefined ? ` (process ${holder.pid})` : ""}; this session continues in a copy of its history`,
    );
  } else if (toResume.loaded.truncatedTail) {
    warn(`the last line of ${path} was cut (the process was killed); it was dropped`);
  }
  return toResume;
}

/** Releases the lock of a session to resume that will not be continued. */
export function releaseResumed(toResume: SessionToResume | undefined): void {
  if (toResume && !("heldBy" in toResume.lock)) toResume.lock.release();
}

/**
 * The conversation a resumed file holds: with logging, continued (its log appended to); without (`mitsu inspect
 * -r`), only read — the transcript with pending calls answered, nothing written, no lock kept.
 */
export function resumeConversation(
  toResume: SessionToResume | undefined,
  logging: boolean,
): { history: Message[]; log?: SessionLog } {
  if (!toResume) return { history: [] };
  if (!logging) {
    releaseResumed(toResume);
    const { loaded } = toResume;
    return {
      history: resumeMessages(loaded.messages, loaded.header.version >= 2 ? loaded.calls : undefined),
    };
  }
  const resumed = continueSession(toResume);
  return { history: resumed.history, log: resumed.log };
}
