import {
  instructionsChanged,
  type LoadProjectInstructionsOptions,
  loadProjectInstructions,
  type ProjectInstructions,
} from "./project-instructions.js";
import type { ReminderSource } from "./reminder-engine.js";

export interface ProjectInstructionsSourceOptions extends LoadProjectInstructionsOptions {
  /**
   * Also offer the unchanged text every turn, so the engine's rate limit repeats it every
   * `remindEvery` rounds (attention fades over a long conversation). Default false: sent on the first
   * user message and again only when a file changes on disk.
   */
  repeat?: boolean;
  /** Called after each (re)load, e.g. for `mitsu inspect` to list the files. */
  onLoad?: (instructions: ProjectInstructions) => void;
}

/**
 * AGENTS.md / CLAUDE.md as a reminder: on the first user message, then whenever a file looked at
 * (including imports, and files that did not exist yet) changes, checked by mtime and size each turn.
 */
export function projectInstructionsSource(options: ProjectInstructionsSourceOptions): ReminderSource {
  let loaded: ProjectInstructions | undefined;
  const load = async () => {
    loaded = await loadProjectInstructions(options);
    options.onLoad?.(loaded);
    return loaded;
  };
  return {
    name: "project-instructions",
    reset() {
      loaded = undefined;
    },
    async collect() {
      if (loaded === undefined) return (await load()).text || undefined;
      if (await instructionsChanged(loaded.stamps)) {
        const before = loaded.text;
        const now = await load();
        if (now.text === before) return options.repeat ? now.text || undefined : undefined;
        if (now.text === "")
          return "The project instruction files were removed; their earlier instructions no longer apply.";
        return `The project instructions changed on disk; this replaces the earlier version.\n\n${now.text}`;
      }
      return options.repeat ? loaded.text || undefined : undefined;
    },
  };
}
