import type { LoadedPlugin } from "../../plugins/load-plugins.js";
import type { Capability } from "../capability.js";

/**
 * One enabled Claude Code plugin as a capability: its commands, skills, agents and output styles for the loaders,
 * its hooks and MCP servers (only while approved as installed; see `loadPlugins`). It adds no tool of its own, so
 * the tools' order is the one without it; its MCP servers' tools come with the MCP capability's, last.
 */
export function pluginCapability(plugin: LoadedPlugin): Capability {
  return { name: `plugin ${plugin.id}`, contributes: plugin.contributions };
}
