import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isObject } from "./plugin-store.js";

/** A plugin Claude Code installed (`~/.claude/plugins/installed_plugins.json`) that applies to this folder. */
export interface ClaudeCodePlugin {
  /** `name@marketplace`. */
  id: string;
  installPath: string;
  /** `user`, or `project` / `local` for an install made for this folder. */
  scope: string;
}

/**
 * The plugins Claude Code installed, as its `installed_plugins.json` records them (version 1: one entry per id;
 * version 2: a list of installs per id, each with a `scope` and, for `project` / `local`, the `projectPath`): the
 * user-scope install of each, or the one made for `cwd`, whose folder exists. A missing or damaged file is none.
 */
export async function readClaudeCodePlugins(home: string, cwd: string): Promise<ClaudeCodePlugin[]> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(join(home, ".claude", "plugins", "installed_plugins.json"), "utf8"));
  } catch {
    return [];
  }
  const plugins = isObject(value) && isObject(value.plugins) ? value.plugins : {};
  const here = resolve(cwd);
  const out: ClaudeCodePlugin[] = [];
  for (const [id, raw] of Object.entries(plugins)) {
    const installs = (Array.isArray(raw) ? raw : [raw]).filter(isObject);
    const applies = (entry: Record<string, unknown>) => {
      const scope = typeof entry.scope === "string" ? entry.scope : "user";
      return (
        scope === "user" || (typeof entry.projectPath === "string" && resolve(entry.projectPath) === here)
      );
    };
    // The install made for this folder wins over the user's (Claude Code resolves them so since 2.1.12x).
    const chosen =
      installs.find((entry) => applies(entry) && entry.scope !== "user" && entry.scope !== undefined) ??
      installs.find(applies);
    if (!chosen || typeof chosen.installPath !== "string") continue;
    if (!(await stat(chosen.installPath).catch(() => undefined))?.isDirectory()) continue;
    out.push({
      id,
      installPath: chosen.installPath,
      scope: typeof chosen.scope === "string" ? chosen.scope : "user",
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
