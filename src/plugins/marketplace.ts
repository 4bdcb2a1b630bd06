import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseJsonc } from "../permissions/parse-jsonc.js";
import { isObject } from "./plugin-store.js";

/** Where a marketplace's plugin comes from. */
export type PluginSource =
  | { kind: "path"; path: string }
  | { kind: "git"; url: string; ref?: string; subdir?: string }
  | { kind: "github"; repo: string; ref?: string; subdir?: string }
  | { kind: "unsupported"; what: string };

export interface MarketplaceEntry {
  name: string;
  description?: string;
  version?: string;
  source: PluginSource;
}

export interface Marketplace {
  name: string;
  /** The folder holding `.claude-plugin/marketplace.json`. */
  root: string;
  plugins: MarketplaceEntry[];
  warnings: string[];
}

/**
 * A marketplace's or plugin's name: it becomes a folder under `~/.mitsu/plugins`, so never `.`, `..` or a path
 * (a marketplace naming itself `..` would have an update remove the whole plugins folder).
 */
const SAFE_NAME = /^[A-Za-z0-9][\w.-]*$/;

export class MarketplaceError extends Error {
  override name = "MarketplaceError";
}

export function marketplaceFile(root: string): string {
  return join(root, ".claude-plugin", "marketplace.json");
}

/**
 * Reads `.claude-plugin/marketplace.json` in Claude Code's format: `name`, `plugins` with each entry's `name` and
 * `source` — a path relative to the marketplace (`./plugins/x`, or a bare name under `metadata.pluginRoot`),
 * `{"source": "github", "repo": "owner/repo"}`, `{"source": "url", "url": "….git"}` or
 * `{"source": "git-subdir", "url", "path"}` (each with an optional `ref`). Throws a `MarketplaceError` when the
 * file is missing or not that shape; a bad plugin entry is a warning and the rest is read.
 */
export async function readMarketplace(root: string): Promise<Marketplace> {
  const file = marketplaceFile(root);
  const text = await readFile(file, "utf8").catch(() => {
    throw new MarketplaceError(`No marketplace at ${root}: ${file} is missing`);
  });
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (error) {
    throw new MarketplaceError(`${file}: invalid JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || typeof value.name !== "string" || !SAFE_NAME.test(value.name)) {
    throw new MarketplaceError(
      `${file}: must be an object with a "name" (letters, digits, "-", "_", ".", starting with a letter or digit)`,
    );
  }
  if (!Array.isArray(value.plugins)) throw new MarketplaceError(`${file}: "plugins" must be a list`);
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const pluginRoot = typeof metadata.pluginRoot === "string" ? metadata.pluginRoot : undefined;
  const warnings: string[] = [];
  const plugins: MarketplaceEntry[] = [];
  value.plugins.forEach((raw, index) => {
    if (!isObject(raw) || typeof raw.name !== "string" || !SAFE_NAME.test(raw.name)) {
      warnings.push(`${file}: plugins[${index}] has no usable "name"; skipped`);
      return;
    }
    const source = readSource(raw.source, pluginRoot);
    if (source === undefined) {
      warnings.push(`${file}: plugin ${JSON.stringify(raw.name)} has no usable "source"; skipped`);
      return;
    }
    const entry: MarketplaceEntry = { name: raw.name, source };
    if (typeof raw.description === "string") entry.description = raw.description;
    if (typeof raw.version === "string") entry.version = raw.version;
    plugins.push(entry);
  });
  return { name: value.name, root, plugins, warnings };
}

function readSource(raw: unknown, pluginRoot: string | undefined): PluginSource | undefined {
  if (typeof raw === "string") {
    if (raw.trim() === "") return undefined;
    const bare = !raw.startsWith("./") && !raw.startsWith("../") && !raw.startsWith("/");
    return { kind: "path", path: bare && pluginRoot ? join(pluginRoot, raw) : raw };
  }
  if (!isObject(raw)) return undefined;
  const ref = typeof raw.ref === "string" ? raw.ref : undefined;
  const extra = (subdir?: unknown) => ({
    ...(ref ? { ref } : {}),
    ...(typeof subdir === "string" && subdir !== "" ? { subdir } : {}),
  });
  switch (raw.source) {
    case "github":
      return typeof raw.repo === "string" && /^[\w.-]+\/[\w.-]+$/.test(raw.repo)
        ? { kind: "github", repo: raw.repo, ...extra(raw.path) }
        : undefined;
    case "url":
    case "git":
      return typeof raw.url === "string" ? { kind: "git", url: raw.url, ...extra(raw.path) } : undefined;
    case "git-subdir":
      return typeof raw.url === "string" ? { kind: "git", url: raw.url, ...extra(raw.path) } : undefined;
    case "directory":
      return typeof raw.path === "string" ? { kind: "path", path: raw.path } : undefined;
    default:
      return { kind: "unsupported", what: JSON.stringify(raw.source) };
  }
}
