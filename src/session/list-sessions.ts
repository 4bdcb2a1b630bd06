import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { emptyUsage, type Message, type Usage } from "../messages/index.js";
import { headerCwd, realFolder } from "./latest-session.js";
import { loadSession } from "./load-session.js";

/** One session of a project, as `mitsu -r` and `/resume` list it. */
export interface SessionSummary {
  path: string;
  id: string;
  /** `api:model` from the header. */
  model: string;
  createdAt: Date;
  /** When the file was last written. */
  updatedAt: Date;
  /** The user's first prompt (reminders left out), or "" for a session without one. */
  firstPrompt: string;
  /** The user's prompts (messages with text of their own; tool results are not prompts). */
  turns: number;
  /** Every model call's usage in the file (see `LoadedSession.usage`). */
  usage: Usage;
  /** The session this one was forked from, when it was. */
  forkedFrom?: string;
}

const REMINDER = "<system-reminder>";

function promptText(message: Message): string {
  if (message.role !== "user" || message.content.some((b) => b.type === "tool_result")) return "";
  return message.content
    .filter((b) => b.type === "text" && !b.text.startsWith(REMINDER))
    .map((b) => (b.type === "text" ? b.text : ""))
    .join("\n")
    .trim();
}

/**
 * The sessions of the project folder `cwd` found in `dirs`, newest first (by last write). Only files whose
 * header names the same folder count. A file that cannot be read (damaged, of a newer format) is left out and
 * reported through `onSkip`; a session with no prompt yet is listed with turns 0. The first prompt is the
 * first of the whole file, also when a compaction has replaced it since.
 */
export function listSessions(
  dirs: readonly string[],
  cwd: string,
  onSkip?: (path: string, why: string) => void,
): SessionSummary[] {
  const folder = realFolder(cwd);
  const out: SessionSummary[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (seen.has(path)) continue;
      seen.add(path);
      const owner = headerCwd(path);
      if (owner === undefined || realFolder(owner) !== folder) continue;
      try {
        const loaded = loadSession(path);
        const prompts = loaded.messages.map(promptText).filter((t) => t !== "");
        const summary: SessionSummary = {
          path,
          id: loaded.header.id,
          model: loaded.header.model,
          createdAt: new Date(loaded.header.createdAt),
          updatedAt: statSync(path).mtime,
          firstPrompt: (loaded.firstMessage && promptText(loaded.firstMessage)) || (prompts[0] ?? ""),
          turns: prompts.length,
          usage: loaded.usage ?? emptyUsage(),
        };
        if (loaded.header.forkedFrom) summary.forkedFrom = loaded.header.forkedFrom;
        out.push(summary);
      } catch (error) {
        onSkip?.(path, error instanceof Error ? error.message : String(error));
      }
    }
  }
  return out.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
}
