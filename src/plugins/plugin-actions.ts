import { randomBytes } from "node:crypto";
import { cp, lstat, mkdir, realpath, rename, rm, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { describePlugin } from "./describe-plugin.js";
import { GitCloneError, gitClone } from "./git-clone.js";
import { type MarketplaceEntry, MarketplaceError, marketplaceFile, readMarketplace } from "./marketplace.js";
import { pluginFingerprint } from "./plugin-fingerprint.js";
import {
  type InstalledPlugin,
  type KnownMarketplace,
  type MarketplaceSource,
  pluginDataDir,
  pluginsHome,
  readInstalledPlugins,
  readKnownMarketplaces,
  writeInstalledPlugins,
  writeKnownMarketplaces,
} from "./plugin-store.js";
import { type Plugin, readPlugin } from "./read-plugin.js";

/** A plugin command that cannot be done: the message says why and what to do. */
export class PluginError extends Error {
  override name = "PluginError";
}

export interface PluginActionOptions {
  home: string;
  cwd: string;
  /** Where progress and notices go, one line each. */
  say: (line: string) => void;
  /**
   * Asked when an update changes a plugin's hooks or MCP servers (or their scripts): yes approves the new copy.
   * Absent (no terminal), the new copy's hooks and servers do not run until `mitsu plugin enable`.
   */
  ask?: (question: string) => Promise<boolean>;
}

/**
 * `mitsu plugin marketplace add <source>`: a folder holding `.claude-plugin/marketplace.json` (read where it is),
 * a git URL (`file://`, `https://…`, `git@…`, a local repository's path ending in `.git`) or GitHub's
 * `owner/repo` (cloned into `~/.mitsu/plugins/marketplaces/<name>`). Returns the marketplace's name.
 */
export async function addMarketplace(input: string, options: PluginActionOptions): Promise<string> {
  const source = await marketplaceSourceOf(input, options.cwd);
  const known = await readKnownMarketplaces(options.home);
  const fetched = await fetchMarketplace(source, options.home);
  const marketplace = await readMarketplace(fetched.location).catch(async (error: Error) => {
    await fetched.discard();
    throw error;
  });
  if (known[marketplace.name] !== undefined) {
    await fetched.discard();
    throw new PluginError(
      `A marketplace named ${JSON.stringify(marketplace.name)} is already added: \`mitsu plugin marketplace update ${marketplace.name}\` refreshes it`,
    );
  }
  const location = await fetched.keep(marketplace.name);
  known[marketplace.name] = { source, installLocation: location, lastUpdated: new Date().toISOString() };
  await writeKnownMarketplaces(options.home, known);
  for (const warning of marketplace.warnings) options.say(`warning: ${warning}`);
  options.say(
    `Added marketplace ${marketplace.name} (${marketplace.plugins.length} plugin${marketplace.plugins.length === 1 ? "" : "s"}): mitsu plugin install <plugin>@${marketplace.name}`,
  );
  return marketplace.name;
}

export async function listMarketplaces(options: PluginActionOptions): Promise<void> {
  const known = await readKnownMarketplaces(options.home);
  const names = Object.keys(known).sort();
  if (names.length === 0) {
    options.say("No marketplaces. Add one: mitsu plugin marketplace add <folder | git URL | owner/repo>");
    return;
  }
  for (const name of names) {
    const entry = known[name]!;
    const marketplace = await readMarketplace(entry.installLocation).catch(() => undefined);
    const plugins = marketplace ? marketplace.plugins.map((p) => p.name).join(", ") : "(cannot be read)";
    options.say(`${name}  ${describeSource(entry.source)}\n  plugins: ${plugins}`);
  }
}

export async function removeMarketplace(name: string, options: PluginActionOptions): Promise<void> {
  const known = await readKnownMarketplaces(options.home);
  const entry = known[name];
  if (entry === undefined) throw new PluginError(`No marketplace named ${JSON.stringify(name)}`);
  const installed = await readInstalledPlugins(options.home);
  const still = Object.values(installed).filter((p) => p.marketplace === name);
  for (const plugin of still) await uninstallPlugin(plugin.id, options);
  delete known[name];
  await writeKnownMarketplaces(options.home, known);
  if (entry.source.source !== "directory") await rm(entry.installLocation, { recursive: true, force: true });
  options.say(
    `Removed marketplace ${name}${still.length > 0 ? ` and its ${still.length} installed plugin(s)` : ""}`,
  );
}

/**
 * `mitsu plugin marketplace update [name]`: fetches the marketplace again and updates its installed plugins. A
 * plugin whose hooks or MCP servers changed is asked about again (`ask`); without an answer its new hooks and
 * servers do not run (its commands, agents and skills do), and a notice says how to approve them.
 */
export async function updateMarketplaces(
  name: string | undefined,
  options: PluginActionOptions,
): Promise<void> {
  const known = await readKnownMarketplaces(options.home);
  const names = name === undefined ? Object.keys(known).sort() : [name];
  for (const each of names) {
    const entry = known[each];
    if (entry === undefined) throw new PluginError(`No marketplace named ${JSON.stringify(each)}`);
    if (entry.source.source !== "directory") {
      const fetched = await fetchMarketplace(entry.source, options.home);
      await rm(entry.installLocation, { recursive: true, force: true });
      entry.installLocation = await fetched.keep(each);
    }
    entry.lastUpdated = new Date().toISOString();
    await writeKnownMarketplaces(options.home, known);
    const installed = await readInstalledPlugins(options.home);
    for (const plugin of Object.values(installed).filter((p) => p.marketplace === each)) {
      await installPlugin(plugin.id, { ...options, updating: true });
    }
    options.say(`Updated marketplace ${each}`);
  }
}

/**
 * `mitsu plugin install <plugin>@<marketplace>` (the marketplace may be left out when one holds the plugin): the
 * plugin is copied to `~/.mitsu/plugins/cache/<marketplace>/<plugin>` and enabled. Installing is the user's
 * approval of what the plugin holds as installed: the fingerprint of its hooks and MCP servers is recorded, and
 * what they run is shown.
 */
export async function installPlugin(
  spec: string,
  options: PluginActionOptions & { updating?: boolean },
): Promise<InstalledPlugin> {
  const known = await readKnownMarketplaces(options.home);
  const { name, marketplace: marketplaceName } = await findPlugin(spec, known);
  const market = await readMarketplace(known[marketplaceName]!.installLocation);
  const entry = market.plugins.find((p) => p.name === name);
  if (entry === undefined) throw new PluginError(`The marketplace ${marketplaceName} has no plugin ${name}`);
  const id = `${name}@${marketplaceName}`;
  const installed = await readInstalledPlugins(options.home);
  const previous = installed[id];
  const dest = join(pluginsHome(options.home), "cache", marketplaceName, name);
  const staging = `${dest}.${randomBytes(4).toString("hex")}.tmp`;
  await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
  try {
    await fetchPlugin(entry, market.root, staging, options.home);
    await rm(dest, { recursive: true, force: true });
    await rename(staging, dest);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const plugin = await readPlugin(dest);
  const fingerprint = await pluginFingerprint(plugin);
  let approved = fingerprint;
  if (options.updating && previous && previous.approvedFingerprint !== fingerprint && runsSomething(plugin)) {
    const question = `The update of ${id} changes what its hooks or MCP servers run:\n${describePlugin(plugin)
      .map((l) => `  ${l}`)
      .join("\n")}\nRun them as they are now?`;
    const yes = options.ask ? await options.ask(question) : false;
    if (!yes) {
      approved = previous.approvedFingerprint;
      options.say(
        `${id} updated, but its changed hooks and MCP servers do not run until you approve them: mitsu plugin enable ${id}`,
      );
    }
  }
  const now = new Date().toISOString();
  const record: InstalledPlugin = {
    id,
    name,
    marketplace: marketplaceName,
    ...(plugin.version ? { version: plugin.version } : entry.version ? { version: entry.version } : {}),
    installPath: dest,
    enabled: previous?.enabled ?? true,
    approvedFingerprint: approved,
    installedAt: previous?.installedAt ?? now,
    lastUpdated: now,
  };
  installed[id] = record;
  await writeInstalledPlugins(options.home, installed);
  for (const warning of plugin.warnings) options.say(`warning: ${warning}`);
  if (!options.updating) {
    options.say(`Installed ${id}${record.version ? ` ${record.version}` : ""}:`);
    for (const line of describePlugin(plugin)) options.say(`  ${line}`);
  }
  return record;
}

export async function uninstallPlugin(spec: string, options: PluginActionOptions): Promise<void> {
  const installed = await readInstalledPlugins(options.home);
  const id = installedId(spec, installed);
  const record = installed[id]!;
  delete installed[id];
  await writeInstalledPlugins(options.home, installed);
  await rm(record.installPath, { recursive: true, force: true });
  await rm(pluginDataDir(options.home, id), { recursive: true, force: true });
  options.say(`Uninstalled ${id}`);
}

/** Enabling is the user's approval of the plugin as it is now (its hooks and MCP servers run again after a change). */
export async function setPluginEnabled(
  spec: string,
  enabled: boolean,
  options: PluginActionOptions,
): Promise<void> {
  const installed = await readInstalledPlugins(options.home);
  const id = installedId(spec, installed);
  const record = installed[id]!;
  record.enabled = enabled;
  if (enabled) record.approvedFingerprint = await pluginFingerprint(await readPlugin(record.installPath));
  await writeInstalledPlugins(options.home, installed);
  options.say(`${enabled ? "Enabled" : "Disabled"} ${id}`);
}

export async function listPlugins(options: PluginActionOptions): Promise<void> {
  const installed = await readInstalledPlugins(options.home);
  const ids = Object.keys(installed).sort();
  if (ids.length === 0) {
    options.say("No plugins installed. Install one: mitsu plugin install <plugin>@<marketplace>");
    return;
  }
  for (const id of ids) {
    const record = installed[id]!;
    const plugin = await readPlugin(record.installPath);
    const changed = (await pluginFingerprint(plugin)) !== record.approvedFingerprint && runsSomething(plugin);
    const state = !record.enabled
      ? "disabled"
      : changed
        ? "enabled, changed hooks/MCP not approved"
        : "enabled";
    options.say(
      `${id}${record.version ? ` ${record.version}` : ""}  [${state}]${plugin.description ? `  ${plugin.description}` : ""}`,
    );
    for (const line of describePlugin(plugin)) options.say(`  ${line}`);
  }
}

function runsSomething(plugin: Plugin): boolean {
  return plugin.hooks.length > 0 || plugin.mcpServers.length > 0;
}

async function findPlugin(
  spec: string,
  known: Record<string, KnownMarketplace>,
): Promise<{ name: string; marketplace: string }> {
  const at = spec.lastIndexOf("@");
  if (at > 0) {
    const name = spec.slice(0, at);
    const marketplace = spec.slice(at + 1);
    if (known[marketplace] === undefined) {
      throw new PluginError(
        `No marketplace named ${JSON.stringify(marketplace)}: add it first (mitsu plugin marketplace add <folder | git URL | owner/repo>)`,
      );
    }
    return { name, marketplace };
  }
  const holders: string[] = [];
  for (const [marketplace, entry] of Object.entries(known)) {
    const market = await readMarketplace(entry.installLocation).catch(() => undefined);
    if (market?.plugins.some((p) => p.name === spec)) holders.push(marketplace);
  }
  if (holders.length === 1) return { name: spec, marketplace: holders[0]! };
  if (holders.length === 0)
    throw new PluginError(`No added marketplace has a plugin named ${JSON.stringify(spec)}`);
  throw new PluginError(
    `Several marketplaces have ${spec}: write ${holders.map((m) => `${spec}@${m}`).join(" or ")}`,
  );
}

function installedId(spec: string, installed: Record<string, InstalledPlugin>): string {
  if (installed[spec] !== undefined) return spec;
  const matches = Object.keys(installed).filter((id) => id.startsWith(`${spec}@`));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new PluginError(`No installed plugin ${JSON.stringify(spec)} (mitsu plugin list)`);
  throw new PluginError(`Several installed plugins are named ${spec}: write ${matches.join(" or ")}`);
}

async function marketplaceSourceOf(input: string, cwd: string): Promise<MarketplaceSource> {
  if (/^(file|https?|ssh|git):\/\//.test(input) || /^[\w.-]+@[\w.-]+:/.test(input)) {
    return { source: "git", url: input };
  }
  const path = resolve(cwd, input);
  const info = await stat(path).catch(() => undefined);
  if (info !== undefined) {
    // A marketplace.json named directly, a folder holding one, or a git repository (cloned like any git URL).
    const folder = info.isFile() ? dirname(dirname(path)) : path;
    if (await stat(marketplaceFile(folder)).catch(() => undefined)) {
      return { source: "directory", path: await realpath(folder) };
    }
    if (info.isDirectory() && (await stat(join(path, ".git")).catch(() => undefined)) !== undefined) {
      return { source: "git", url: pathToFileURL(path).href };
    }
    if (info.isDirectory() && path.endsWith(".git")) return { source: "git", url: pathToFileURL(path).href };
    throw new MarketplaceError(`No marketplace at ${path}: ${marketplaceFile(folder)} is missing`);
  }
  if (/^[\w.-]+\/[\w.-]+$/.test(input)) return { source: "github", repo: input };
  throw new PluginError(`${JSON.stringify(input)} is neither a folder, a git URL nor a GitHub owner/repo`);
}

function describeSource(source: MarketplaceSource): string {
  if (source.source === "directory") return `(folder ${source.path})`;
  if (source.source === "git") return `(git ${source.url})`;
  return `(GitHub ${source.repo})`;
}

/** Clones (or points at) a marketplace; `keep(name)` moves a clone to its place and returns the folder. */
async function fetchMarketplace(
  source: MarketplaceSource,
  home: string,
): Promise<{ location: string; keep: (name: string) => Promise<string>; discard: () => Promise<void> }> {
  if (source.source === "directory") {
    return { location: source.path, keep: async () => source.path, discard: async () => {} };
  }
  const dir = join(pluginsHome(home), "marketplaces");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const staging = join(dir, `.clone-${randomBytes(4).toString("hex")}`);
  await cloneSource(
    source.source === "github" ? { kind: "github", repo: source.repo } : { kind: "git", url: source.url },
    staging,
    source.ref,
  );
  return {
    location: staging,
    keep: async (name) => {
      const final = join(dir, name);
      await rm(final, { recursive: true, force: true });
      await rename(staging, final);
      return final;
    },
    discard: () => rm(staging, { recursive: true, force: true }),
  };
}

/** A plugin's files into `dest`: copied from the marketplace's folder, or cloned (and a subfolder kept). */
async function fetchPlugin(
  entry: MarketplaceEntry,
  marketRoot: string,
  dest: string,
  home: string,
): Promise<void> {
  const source = entry.source;
  if (source.kind === "unsupported") {
    throw new PluginError(
      `The plugin ${entry.name} comes from a ${source.what} source, which mitsu cannot install yet`,
    );
  }
  if (source.kind === "path") {
    const from = await realpath(resolve(marketRoot, source.path)).catch(() => {
      throw new PluginError(
        `The plugin ${entry.name}'s folder ${source.path} is missing from the marketplace`,
      );
    });
    const rel = relative(await realpath(marketRoot), from);
    if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
      throw new PluginError(`The plugin ${entry.name}'s folder ${source.path} lies outside its marketplace`);
    }
    await cp(from, dest, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (path) => keepInCopy(from, path),
    });
    return;
  }
  const clone = join(pluginsHome(home), "marketplaces", `.plugin-${randomBytes(4).toString("hex")}`);
  try {
    await cloneSource(source, clone, source.ref);
    const from = await realpath(source.subdir ? resolve(clone, source.subdir) : clone).catch(() => {
      throw new PluginError(
        `The plugin ${entry.name}'s folder ${source.subdir} is missing from its repository`,
      );
    });
    if (!isInside(await realpath(clone), from)) {
      throw new PluginError(`The plugin ${entry.name}'s folder ${source.subdir} lies outside its repository`);
    }
    await cp(from, dest, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (path) => keepInCopy(from, path),
    });
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return !(rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel));
}

/**
 * What an install copies of a plugin's folder: not `.git`, and no symbolic link that leads out of the plugin (a
 * `commands/notes.md` linked to `~/.ssh/id_rsa` would send the key to the model when the command is used).
 */
async function keepInCopy(root: string, path: string): Promise<boolean> {
  if (relative(root, path).split(sep).includes(".git")) return false;
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isSymbolicLink()) return true;
  const target = await realpath(path).catch(() => undefined);
  return target !== undefined && isInside(await realpath(root), target);
}

async function cloneSource(
  source: { kind: "github"; repo: string } | { kind: "git"; url: string },
  dest: string,
  ref: string | undefined,
): Promise<void> {
  const options = ref ? { ref } : {};
  if (source.kind === "git") {
    await gitClone(source.url, dest, { ...options, what: source.url });
    return;
  }
  try {
    await gitClone(`https://github.com/${source.repo}.git`, dest, {
      ...options,
      what: `GitHub repository ${source.repo}`,
    });
  } catch (error) {
    if (!(error instanceof GitCloneError)) throw error;
    throw new PluginError(
      `${error.message}. GitHub could not be reached or has no such repository; with no network, add the marketplace from a local clone instead (mitsu plugin marketplace add /path/to/clone)`,
    );
  }
}
