import type { PluginSettings } from "../permissions/index.js";
import { loadPlugins } from "../plugins/load-plugins.js";
import { pluginCapability } from "./capabilities/plugin.js";
import type { Capability } from "./capability.js";
import type { CodingAgentOptions } from "./coding-agent.js";

/**
 * The plugins a coding agent loads, each as a capability: none with `plugins: false`, else the installed and
 * enabled ones and the `pluginDirs` (see `loadPlugins`), enabled by the settings' keys as `loadSettings` read them.
 */
export async function loadPluginsFor(
  options: Pick<CodingAgentOptions, "plugins" | "pluginDirs" | "approvePlugin">,
  where: { cwd: string; home: string },
  settings: PluginSettings,
): Promise<{ capabilities: Capability[]; warnings: string[] }> {
  if (options.plugins === false) return { capabilities: [], warnings: [] };
  const loaded = await loadPlugins({
    ...where,
    settings,
    ...(options.pluginDirs ? { pluginDirs: options.pluginDirs } : {}),
    ...(options.approvePlugin ? { approve: options.approvePlugin } : {}),
  });
  return { capabilities: loaded.plugins.map(pluginCapability), warnings: loaded.warnings };
}
