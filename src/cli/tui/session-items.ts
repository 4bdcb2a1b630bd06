import type { ProjectSession } from "../../harness/index.js";
import { ago } from "../conversation/session-list.js";
import { formatUsd } from "../conversation/session-status.js";
import { typedPrompt } from "../conversation/typed-prompt.js";
import { showControls } from "../render/terminal-text.js";
import type { PickerItem } from "./list-picker.js";

/** The sessions as a picker's choices (`/resume`, `mitsu -r` at a terminal): the first prompt as typed, age, turns, cost. */
export function sessionItems(sessions: readonly ProjectSession[], now = new Date()): PickerItem<string>[] {
  return sessions.map((s) => {
    const prompt = showControls(typedPrompt(s.firstPrompt).replace(/\s+/g, " ").trim());
    const label = prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt || "(no prompt)";
    const turns = `${s.turns} turn${s.turns === 1 ? "" : "s"}`;
    return {
      label,
      detail: `${ago(s.updatedAt, now)} · ${turns} · ${formatUsd(s.usd)} · ${s.id.slice(0, 8)}`,
      searchText: `${prompt} ${s.id}`,
      value: s.path,
    };
  });
}
