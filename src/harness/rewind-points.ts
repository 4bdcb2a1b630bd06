import type { Message } from "../messages/index.js";

/** A user prompt of the conversation that `rewind` can go back to. */
export interface RewindPoint {
  /** The prompt's index in `history`: a rewind keeps the messages before it. */
  index: number;
  /** The prompt's first line (empty for a prompt of images only). */
  firstLine: string;
}

/** What `rewind` did to the files: written back (or deleted, having not existed) and those it could not restore. */
export interface RewindResult {
  restored: string[];
  notRestored: Array<{ path: string; why: string }>;
}

/** A file a rewind with `restoreFiles` would touch, listed before the user is asked (`rewindPreview`). */
export interface RewindFile {
  path: string;
  /** `restore`: written back to its content before; `delete`: it did not exist then. */
  action: "restore" | "delete";
  /** Why it will not be touched (outside the workspace, a symbolic link, a dropped checkpoint). */
  refused?: string;
}

/** The user prompts of `history`, oldest first: user messages that carry no tool results. */
export function rewindPointsOf(history: readonly Message[]): RewindPoint[] {
  const points: RewindPoint[] = [];
  history.forEach((message, index) => {
    if (message.role !== "user" || message.content.some((b) => b.type === "tool_result")) return;
    const text = message.content.find((b) => b.type === "text" && !b.text.startsWith("<system-reminder>")) as
      | { text: string }
      | undefined;
    points.push({ index, firstLine: (text?.text ?? "").trim().split("\n")[0] ?? "" });
  });
  return points;
}
