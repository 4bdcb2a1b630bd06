import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type CommandHook, parseHooks } from "../hooks/load-hooks.js";
import { McpConfigError, type McpServerEntry } from "../mcp/mcp-server-config.js";
import { parseServerEntry } from "../mcp/parse-mcp-config.js";
import { loadSettings } from "../permissions/load-settings.js";
import { emptyPluginSettings, type PluginSettings } from "../permissions/plugin-keys.js";
import { readClaudeCodePlugins } from "./claude-code-plugins.js";
import { describePlugin } from "./describe-plugin.js";
import { pluginFingerprint } from "./plugin-fingerprint.js";
import { marketplaceAddArgument } from "./plugin-settings.js";
import {
  pluginDataDir,
  readInstalledPlugins,
  readKnownMarketplaces,
  writeInstalledPlugins,
} from "./plugin-store.js";
import { type Plugin, readPlugin } from "./read-plugin.js";

/** A folder (or a single file) of one plugin's commands, agents or skills, and the plugin that names them. */
export interface PluginRoot {
  path: string;
  plugin: string;
}

/**
 * What enabled plugins add to the loaders mitsu already has: folders for skill and command discovery and for the
 * agent files, hooks for the hook runner, MCP servers for the MCP start-up. A plugin is nothing else, so it can
 * become a harness capability as it is.
 */
export interface PluginContributions {
  skills: PluginRoot[];
  commands: PluginRoot[];
  agents: PluginRoot[];
  outputStyles: PluginRoot[];
  hooks: CommandHook[];
  mcpServers: McpServerEntry[];
}

export interface LoadedPlugin {
  /** `name@marketplace`, or `name` for a `--plugin-dir` one. */
  id: string;
  plugin: Plugin;
  /** Whether its hooks and MCP servers run (approved as they are now). */
  runs: boolean;
  /** What it adds (its hooks and MCP servers only when `runs`). */
  contributions: PluginContributions;
}

export interface LoadedPlugins {
  plugins: LoadedPlugin[];
  contributions: PluginContributions;
  /** Problems and notices, one line each (a plugin's hooks held back, a suggested marketplace). */
  warnings: string[];
}

/** An installed plugin whose hooks or MCP servers changed since the user approved it: what it runs now. */
export interface PluginApproval {
  id: string;
  /** Its hooks' and servers' commands, one line each (see `describePlugin`). */
  lines: string[];
}

export interface LoadPluginsOptions {
  cwd: string;
  home?: string;
  /**
   * `enabledPlugins` and `extraKnownMarketplaces` as `loadSettings` read them (`LoadedSettings.plugins`), so the
   * harness reads the settings files once; absent (the one-shot commands), the settings files are read here.
   */
  settings?: PluginSettings;
  /** `--plugin-dir`: plugins loaded for this run, approved by naming them. */
  pluginDirs?: readonly string[];
  /**
   * Asks the user about a plugin that changed since approval (interactive mode); a yes is recorded as the new
   * approval. Absent (print mode), the changed hooks and servers do not run, with a notice.
   */
  approve?: (approval: PluginApproval) => Promise<boolean>;
}

export function emptyContributions(): PluginContributions {
  return { skills: [], commands: [], agents: [], outputStyles: [], hooks: [], mcpServers: [] };
}

/**
 * The enabled plugins and what they add. Installed plugins (`~/.mitsu/plugins/installed_plugins.json`) are enabled
 * as recorded; the user's `enabledPlugins` setting turns one on or off; a project's turns one off, never on (a
 * repository does not enable code the user did not choose for it): a project's `true` for a plugin that is not
 * enabled, or not installed, and its `extraKnownMarketplaces`, are only offered, in a notice. A plugin's hooks and
 * MCP servers run only while its fingerprint is the one the user approved by installing or enabling it; its
 * commands, agents and skills load either way.
 */
export async function loadPlugins(options: LoadPluginsOptions): Promise<LoadedPlugins> {
  const home = resolve(options.home ?? homedir());
  const warnings: string[] = [];
  const contributions = emptyContributions();
  const plugins: LoadedPlugin[] = [];
  const [installed, settings, known] = await Promise.all([
    readInstalledPlugins(home),
    // (Only a malformed `sandbox` section makes loadSettings throw; the plugin keys are then read as none.)
    options.settings ??
      loadSettings({ cwd: options.cwd, home }).then(
        (loaded) => loaded.plugins,
        () => emptyPluginSettings(),
      ),
    readKnownMarketplaces(home),
  ]);

  const add = async (
    id: string,
    plugin: Plugin,
    approved: string | "always",
    data = pluginDataDir(home, id),
  ) => {
    for (const warning of plugin.warnings) warnings.push(`plugin ${id}: ${warning}`);
    const fingerprint = approved === "always" ? approved : await pluginFingerprint(plugin);
    let runs = fingerprint === approved;
    const runsSomething = plugin.hooks.length > 0 || plugin.mcpServers.length > 0;
    if (
      !runs &&
      runsSomething &&
      options.approve &&
      (await options.approve({ id, lines: describePlugin(plugin) }))
    ) {
      const records = await readInstalledPlugins(home);
      const record = records[id];
      if (record) {
        record.approvedFingerprint = fingerprint;
        await writeInstalledPlugins(home, records);
      }
      runs = true;
    }
    if (!runs && runsSomething) {
      warnings.push(
        `plugin ${id}: its hooks or MCP servers changed since you approved them, so they do not run; run \`mitsu plugin enable ${id}\` to approve them as they are now`,
      );
    }
    const own = emptyContributions();
    addContributions(own, plugin, { data, runs, warnings, id });
    plugins.push({ id, plugin, runs, contributions: own });
    mergeContributions(contributions, own);
  };

  for (const dir of options.pluginDirs ?? []) {
    const plugin = await readPlugin(resolve(options.cwd, dir));
    await add(plugin.name, plugin, "always");
  }
  for (const [id, record] of Object.entries(installed).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const userSays = settings.user[id];
    let enabled = userSays ?? record.enabled;
    const projectOff = settings.project.find((p) => p.id === id && !p.enabled);
    if (projectOff) enabled = false;
    if (!enabled) {
      const projectOn = settings.project.find((p) => p.id === id && p.enabled);
      if (projectOn) {
        warnings.push(
          `${projectOn.file} enables the plugin ${id}, which you have disabled: \`mitsu plugin enable ${id}\` to use it`,
        );
      }
      continue;
    }
    if (plugins.some((p) => p.plugin.name === record.name)) continue; // a --plugin-dir of the same name wins
    const plugin = await readPlugin(record.installPath, record.name);
    await add(id, plugin, record.approvedFingerprint);
  }
  // Claude Code's own installs, so an existing set-up carries over: enabled as Claude Code enables them (the user's
  // `enabledPlugins`; a project's too for an install the user made for this folder), approved by that install.
  const fromClaude = await readClaudeCodePlugins(home, options.cwd);
  for (const { id, installPath, scope } of fromClaude) {
    if (installed[id] !== undefined) continue; // mitsu's own install of it wins
    const projectSays = settings.project.filter((p) => p.id === id);
    const enabled =
      !projectSays.some((p) => !p.enabled) &&
      (settings.user[id] === true || (scope !== "user" && projectSays.some((p) => p.enabled)));
    if (!enabled) continue;
    const plugin = await readPlugin(installPath, id.slice(0, id.lastIndexOf("@")) || id);
    if (plugins.some((p) => p.plugin.name === plugin.name)) continue;
    // Claude Code's data folder for it (`~/.claude/plugins/data/<id>`), so its state carries over too.
    await add(id, plugin, "always", join(home, ".claude", "plugins", "data", id.replace(/[^\w.-]/g, "-")));
  }
  for (const { id, enabled, file } of settings.project) {
    if (enabled && installed[id] === undefined && !fromClaude.some((p) => p.id === id)) {
      warnings.push(`${file} suggests the plugin ${id}: \`mitsu plugin install ${id}\` to install it`);
    }
  }
  for (const { name, source, file } of settings.marketplaces) {
    if (known[name] !== undefined) continue;
    const argument = marketplaceAddArgument(source);
    warnings.push(
      `${file} suggests the plugin marketplace ${JSON.stringify(name)}${argument ? `: \`mitsu plugin marketplace add ${argument}\` to add it` : ""} (mitsu adds none by itself)`,
    );
  }
  return { plugins, contributions, warnings };
}

/** Adds `more` to `into`, list by list. */
export function mergeContributions(into: PluginContributions, more: PluginContributions): void {
  into.skills.push(...more.skills);
  into.commands.push(...more.commands);
  into.agents.push(...more.agents);
  into.outputStyles.push(...more.outputStyles);
  into.hooks.push(...more.hooks);
  into.mcpServers.push(...more.mcpServers);
}

/** One plugin's folders, hooks and servers, with `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` filled in. */
function addContributions(
  into: PluginContributions,
  plugin: Plugin,
  at: { data: string; runs: boolean; warnings: string[]; id: string },
): void {
  const name = plugin.name;
  into.commands.push(...plugin.commands.map((path) => ({ path, plugin: name })));
  into.agents.push(...plugin.agents.map((path) => ({ path, plugin: name })));
  into.skills.push(...plugin.skills.map((path) => ({ path, plugin: name })));
  into.outputStyles.push(...plugin.outputStyles.map((path) => ({ path, plugin: name })));
  if (!at.runs) return;
  // `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` (or mitsu's names), as Claude Code fills them in.
  const fill = (text: string) =>
    text.replace(/\$\{(?:CLAUDE|MITSU)_PLUGIN_(ROOT|DATA)\}/g, (_m, what: string) =>
      what === "ROOT" ? plugin.root : at.data,
    );
  const env = {
    CLAUDE_PLUGIN_ROOT: plugin.root,
    MITSU_PLUGIN_ROOT: plugin.root,
    CLAUDE_PLUGIN_DATA: at.data,
    MITSU_PLUGIN_DATA: at.data,
  };
  for (const { source, hooks } of plugin.hooks) {
    for (const hook of parseHooks(hooks, source, at.warnings)) {
      into.hooks.push({ ...hook, command: fill(hook.command), env, source: `plugin ${at.id} (${source})` });
    }
  }
  for (const { source, servers } of plugin.mcpServers) {
    for (const [server, entry] of Object.entries(servers)) {
      try {
        const config = parseServerEntry(server, fillDeep(entry, fill));
        // Claude Code's name for a plugin's server, so its tools are `mcp__plugin_<plugin>_<server>__<tool>`.
        into.mcpServers.push({ name: `plugin_${name}_${server}`, scope: "plugin", source, config });
      } catch (error) {
        if (!(error instanceof McpConfigError)) throw error;
        at.warnings.push(`plugin ${at.id}: ${error.message} (in ${source}); skipped`);
      }
    }
  }
}

function fillDeep(value: unknown, fill: (text: string) => string): unknown {
  if (typeof value === "string") return fill(value);
  if (Array.isArray(value)) return value.map((item) => fillDeep(item, fill));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, fill)]));
  }
  return value;
}
