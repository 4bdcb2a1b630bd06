import { emptyContributions, type LoadedPlugins, loadPlugins } from "../plugins/load-plugins.js";
import type { CodingAgentOptions } from "./coding-agent.js";

/**
 * The plugins a coding agent loads: none with `plugins: false`, else the installed and enabled ones and the
 * `pluginDirs` (see `loadPlugins`). One call, so that plugins can become one of the harness's capabilities.
 */
export async function loadPluginsFor(
  options: Pick<CodingAgentOptions, "plugins" | "pluginDirs" | "approvePlugin">,
  where: { cwd: string; home: string },
): Promise<LoadedPlugins> {
  if (options.plugins === false) return { plugins: [], contributions: emptyContributions(), warnings: [] };
  return loadPlugins({
    ...where,
    ...(options.pluginDirs ? { pluginDirs: options.pluginDirs } : {}),
    ...(options.approvePlugin ? { approve: options.approvePlugin } : {}),
  });
}
