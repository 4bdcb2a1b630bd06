import type { ProjectSession } from "../../harness/index.js";
import type { Style } from "../render/style.js";
import { showControls } from "../render/terminal-text.js";
import { formatUsd } from "./session-status.js";
import { typedPrompt } from "./typed-prompt.js";

/** "3m ago", "2h ago", "5d ago": how long since `then`. */
export function ago(then: Date, now: Date = new Date()): string {
  const s = Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/**
 * The sessions as a numbered list for `mitsu -r` and `/resume`, newest first: number, when, turns, cost, the
 * first prompt (one line, cut, control characters shown as escapes: a session file is untrusted text), id.
 */
export function formatSessionList(
  sessions: readonly ProjectSession[],
  style: Style,
  now = new Date(),
): string {
  if (sessions.length === 0) return "no sessions in this folder yet";
  const width = String(sessions.length).length;
  return sessions
    .map((s, i) => {
      const prompt = showControls(typedPrompt(s.firstPrompt).replace(/\s+/g, " ").trim());
      const shown = prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt || "(no prompt)";
      const turns = `${s.turns} turn${s.turns === 1 ? "" : "s"}`;
      const meta = `${ago(s.updatedAt, now).padStart(7)}  ${turns.padStart(9)}  ${formatUsd(s.usd).padStart(7)}`;
      return `${String(i + 1).padStart(width)}. ${style.dim(meta)}  ${shown}  ${style.dim(s.id.slice(0, 8))}`;
    })
    .join("\n");
}
