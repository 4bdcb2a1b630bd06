import { isPlainObject } from "../providers/is-plain-object.js";

/** The plugin keys of Claude Code's settings files, by level, as `loadSettings` reads them. */
export interface PluginSettings {
  /** `enabledPlugins` of the user's files (`~/.claude`, `~/.mitsu`), later over earlier: `"name@market": bool`. */
  user: Record<string, boolean>;
  /** `enabledPlugins` of the project's files (shared and local), with the file that said it. */
  project: Array<{ id: string; enabled: boolean; file: string }>;
  /** `extraKnownMarketplaces` of any file: a name and its source as written, with the file. */
  marketplaces: Array<{ name: string; source: unknown; file: string }>;
}

export function emptyPluginSettings(): PluginSettings {
  return { user: {}, project: [], marketplaces: [] };
}

/**
 * One settings file's `enabledPlugins` and `extraKnownMarketplaces`, added to `into`. Read whatever the folder's
 * trust: a project's file only turns a plugin off or suggests one (see `loadPlugins`), it enables nothing. A value
 * that is not a boolean is skipped, as Claude Code skips it.
 */
export function readPluginKeys(
  top: Record<string, unknown>,
  file: string,
  user: boolean,
  into: PluginSettings,
): void {
  if (isPlainObject(top.enabledPlugins)) {
    for (const [id, enabled] of Object.entries(top.enabledPlugins)) {
      if (typeof enabled !== "boolean") continue;
      if (user) into.user[id] = enabled;
      else into.project.push({ id, enabled, file });
    }
  }
  if (isPlainObject(top.extraKnownMarketplaces)) {
    for (const [name, entry] of Object.entries(top.extraKnownMarketplaces)) {
      into.marketplaces.push({ name, source: isPlainObject(entry) ? entry.source : undefined, file });
    }
  }
}
