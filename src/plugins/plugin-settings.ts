import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseJsonc } from "../permissions/parse-jsonc.js";
import { isObject } from "./plugin-store.js";

/** The plugin keys of Claude Code's settings files, by level. */
export interface PluginSettings {
  /** `enabledPlugins` of the user's files (`~/.claude`, `~/.mitsu`), later over earlier: `"name@market": bool`. */
  user: Record<string, boolean>;
  /** `enabledPlugins` of the project's files (shared and local), with the file that said it. */
  project: Array<{ id: string; enabled: boolean; file: string }>;
  /** `extraKnownMarketplaces` of any file: a name and its source as written, with the file. */
  marketplaces: Array<{ name: string; source: unknown; file: string }>;
}

/**
 * Reads `enabledPlugins` and `extraKnownMarketplaces` from the same six settings files `loadSettings` reads (JSONC;
 * a file that cannot be read adds nothing — `loadSettings` already warns of it).
 */
export async function readPluginSettings(cwd: string, home: string): Promise<PluginSettings> {
  const user = [join(home, ".claude", "settings.json"), join(home, ".mitsu", "settings.json")];
  const project = [
    ".claude/settings.json",
    ".mitsu/settings.json",
    ".claude/settings.local.json",
    ".mitsu/settings.local.json",
  ].map((file) => join(resolve(cwd), file));
  const result: PluginSettings = { user: {}, project: [], marketplaces: [] };
  const seen = new Set<string>();
  for (const file of [...user, ...project]) {
    if (seen.has(file)) continue;
    seen.add(file);
    let value: unknown;
    try {
      value = parseJsonc(await readFile(file, "utf8"));
    } catch {
      continue;
    }
    if (!isObject(value)) continue;
    const isUser = user.includes(file);
    if (isObject(value.enabledPlugins)) {
      for (const [id, enabled] of Object.entries(value.enabledPlugins)) {
        if (typeof enabled !== "boolean") continue;
        if (isUser) result.user[id] = enabled;
        else result.project.push({ id, enabled, file });
      }
    }
    if (isObject(value.extraKnownMarketplaces)) {
      for (const [name, entry] of Object.entries(value.extraKnownMarketplaces)) {
        result.marketplaces.push({ name, source: isObject(entry) ? entry.source : undefined, file });
      }
    }
  }
  return result;
}

/** How to add a suggested marketplace by hand: the argument for `mitsu plugin marketplace add`, if it has one. */
export function marketplaceAddArgument(source: unknown): string | undefined {
  if (!isObject(source)) return undefined;
  if (source.source === "github" && typeof source.repo === "string") return source.repo;
  if ((source.source === "git" || source.source === "url") && typeof source.url === "string")
    return source.url;
  if (source.source === "directory" && typeof source.path === "string") return source.path;
  return undefined;
}
