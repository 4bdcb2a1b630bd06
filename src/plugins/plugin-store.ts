import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Where a marketplace was added from: a folder on this machine, a git repository, or a GitHub `owner/repo`. */
export type MarketplaceSource =
  | { source: "directory"; path: string }
  | { source: "git"; url: string; ref?: string }
  | { source: "github"; repo: string; ref?: string };

/** One marketplace the user added (`mitsu plugin marketplace add`). */
export interface KnownMarketplace {
  source: MarketplaceSource;
  /** The folder holding `.claude-plugin/marketplace.json`: the directory itself, or the clone. */
  installLocation: string;
  /** ISO 8601. */
  lastUpdated: string;
}

/** One installed plugin (`mitsu plugin install name@marketplace`). */
export interface InstalledPlugin {
  /** `name@marketplace`. */
  id: string;
  name: string;
  marketplace: string;
  version?: string;
  /** The installed copy, under `~/.mitsu/plugins/cache/`. */
  installPath: string;
  enabled: boolean;
  /**
   * The fingerprint of the hooks and MCP servers (and the scripts beside them) the user approved by installing or
   * enabling: a copy whose fingerprint differs (an update changed them) runs neither until approved again.
   */
  approvedFingerprint: string;
  /** ISO 8601. */
  installedAt: string;
  lastUpdated: string;
}

/** `~/.mitsu/plugins`: marketplaces' clones, installed copies, the plugins' data folders and two JSON records. */
export function pluginsHome(home: string): string {
  return join(home, ".mitsu", "plugins");
}

const marketplacesFile = (home: string) => join(pluginsHome(home), "known_marketplaces.json");
const installedFile = (home: string) => join(pluginsHome(home), "installed_plugins.json");

/** The folder a plugin's `${CLAUDE_PLUGIN_DATA}` names: kept across updates, removed on uninstall. */
export function pluginDataDir(home: string, id: string): string {
  return join(pluginsHome(home), "data", id.replace(/[^\w.-]/g, "-"));
}

export async function readKnownMarketplaces(home: string): Promise<Record<string, KnownMarketplace>> {
  const value = await readJson(marketplacesFile(home));
  return isObject(value) ? (value as Record<string, KnownMarketplace>) : {};
}

export async function writeKnownMarketplaces(
  home: string,
  marketplaces: Record<string, KnownMarketplace>,
): Promise<void> {
  await writeJson(marketplacesFile(home), marketplaces);
}

export async function readInstalledPlugins(home: string): Promise<Record<string, InstalledPlugin>> {
  const value = await readJson(installedFile(home));
  const plugins = isObject(value) && isObject(value.plugins) ? value.plugins : {};
  return plugins as Record<string, InstalledPlugin>;
}

export async function writeInstalledPlugins(
  home: string,
  plugins: Record<string, InstalledPlugin>,
): Promise<void> {
  await writeJson(installedFile(home), { version: 1, plugins });
}

/** A missing or damaged record is empty: an approval never comes from a damaged file. */
async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** Written whole by rename, 0600 in a 0700 folder (the model's writes under `~/.mitsu/` are always asked). */
async function writeJson(file: string, value: unknown): Promise<void> {
  const dir = join(file, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
