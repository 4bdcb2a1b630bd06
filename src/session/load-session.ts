import { readFileSync } from "node:fs";
import type { Message } from "../messages/index.js";
import { sessionLineProblem } from "./check-session-line.js";
import type { SessionHeader, SessionLine } from "./session-log.js";

export interface LoadedSession {
  header: SessionHeader;
  messages: Message[];
  /** Set when the last line was cut (the process was killed mid-write); that line is not loaded. */
  truncatedTail: boolean;
}

/**
 * Reads a session file. A cut last line (a kill mid-write) is dropped and reported; any other bad line — not
 * JSON, or JSON of the wrong shape (see `sessionLineProblem`) — is an error that names the file, the line and
 * what is wrong with it: a damaged transcript is never silently shortened, nor sent on to fail later.
 */
export function loadSession(path: string): LoadedSession {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`Cannot read session ${path}: ${(error as Error).message}`);
  }
  const lines = text.split("\n");
  const endsClean = text.endsWith("\n");
  if (endsClean) lines.pop();
  let header: SessionHeader | undefined;
  const messages: Message[] = [];
  let truncatedTail = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      if (i === lines.length - 1 && !endsClean) {
        truncatedTail = true;
        break;
      }
      throw new Error(`Session ${path} line ${i + 1} is not valid JSON`);
    }
    const problem = sessionLineProblem(parsed, i === 0);
    if (problem) throw new Error(`Session ${path} line ${i + 1} ${problem}`);
    const line = parsed as SessionLine;
    if (line.type === "session") header = line;
    else messages.push(line.message);
  }
  if (!header) throw new Error(`Session ${path} is empty`);
  return { header, messages, truncatedTail };
}
