import { readFileSync } from "node:fs";
import type { Message } from "../messages/index.js";
import type { SessionHeader, SessionLine } from "./session-log.js";

export interface LoadedSession {
  header: SessionHeader;
  messages: Message[];
  /** Set when the last line was cut (the process was killed mid-write); that line is not loaded. */
  truncatedTail: boolean;
}

/**
 * Reads a session file. A cut last line (a kill mid-write) is dropped and reported; any other bad line is
 * an error that names the file and the line — a damaged transcript is never silently shortened.
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
    let line: SessionLine;
    try {
      line = JSON.parse(raw) as SessionLine;
    } catch {
      if (i === lines.length - 1 && !endsClean) {
        truncatedTail = true;
        break;
      }
      throw new Error(`Session ${path} line ${i + 1} is not valid JSON`);
    }
    if (typeof line !== "object" || line === null) {
      throw new Error(`Session ${path} line ${i + 1} has an unknown type`);
    }
    if (i === 0) {
      if (line.type !== "session") throw new Error(`Session ${path} has no header line`);
      header = line;
    } else if (line.type === "message") {
      messages.push(line.message);
    } else {
      throw new Error(`Session ${path} line ${i + 1} has an unknown type`);
    }
  }
  if (!header) throw new Error(`Session ${path} is empty`);
  return { header, messages, truncatedTail };
}
