import { readFile, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseJsonc } from "../permissions/parse-jsonc.js";
import { isObject } from "./plugin-store.js";

/** A plugin folder as Claude Code reads it: `.claude-plugin/plugin.json` and the folders its parts live in. */
export interface Plugin {
  /** From the manifest, else the folder's name. */
  name: string;
  version?: string;
  description?: string;
  /** The plugin's folder, links resolved: `${CLAUDE_PLUGIN_ROOT}`. */
  root: string;
  /** Folders of commands (`*.md`, subfolders namespace them) and single command files, that exist. */
  commands: string[];
  /** Folders of agent files (subfolders read too) and single agent files, that exist. */
  agents: string[];
  /** Folders of skills (`<name>/SKILL.md`), that exist. */
  skills: string[];
  /** Folders of output styles (`*.md`), that exist. */
  outputStyles: string[];
  /** Each hooks configuration: `{Event: [groups]}` as in a settings file's `hooks`, and where it was written. */
  hooks: Array<{ source: string; hooks: Record<string, unknown> }>;
  /** Each MCP configuration: `{name: {command, args, …}}` as in `.mcp.json`'s `mcpServers`, and where. */
  mcpServers: Array<{ source: string; servers: Record<string, unknown> }>;
  /**
   * The names of the LSP servers it declares (`lspServers` in the manifest, `.lsp.json`): listed so the user knows
   * of them, never started — mitsu has no language-server support.
   */
  lspServers: string[];
  /** What could not be used, each naming the file; the rest of the plugin still loads. */
  warnings: string[];
}

/**
 * Reads a plugin folder. The manifest is optional (`fallbackName`, else the folder's name, is then the plugin's:
 * Claude Code's cache keeps a plugin in a folder named after its version); its `commands`,
 * `agents` and `skills` (a path or a list) add to the default `commands/`, `agents/` and `skills/` folders; `hooks`
 * (a file or an inline object) adds to `hooks/hooks.json`; `mcpServers` (a file or inline) adds to `.mcp.json`.
 * A path that leaves the plugin's folder is refused with a warning. Never throws for a bad file.
 */
export async function readPlugin(dir: string, fallbackName?: string): Promise<Plugin> {
  const root = await realpath(resolve(dir)).catch(() => resolve(dir));
  const warnings: string[] = [];
  const manifestFile = join(root, ".claude-plugin", "plugin.json");
  let manifest: Record<string, unknown> = {};
  const text = await readFile(manifestFile, "utf8").catch(() => undefined);
  if (text !== undefined) {
    try {
      const value = parseJsonc(text);
      if (isObject(value)) manifest = value;
      else warnings.push(`${manifestFile}: must contain a JSON object; ignored`);
    } catch (error) {
      warnings.push(`${manifestFile}: invalid JSON (${(error as Error).message}); ignored`);
    }
  }
  const name =
    typeof manifest.name === "string" && manifest.name.trim() !== ""
      ? manifest.name.trim()
      : (fallbackName ?? basename(root));
  const plugin: Plugin = {
    name,
    root,
    commands: [],
    agents: [],
    skills: [],
    outputStyles: [],
    hooks: [],
    mcpServers: [],
    lspServers: [],
    warnings,
  };
  if (typeof manifest.version === "string") plugin.version = manifest.version;
  if (typeof manifest.description === "string") plugin.description = manifest.description;

  const inside = async (written: string, key: string): Promise<string | undefined> => {
    if (isAbsolute(written)) {
      warnings.push(
        `${manifestFile}: ${key} ${JSON.stringify(written)} must be relative to the plugin (./…); ignored`,
      );
      return undefined;
    }
    const path = resolve(root, written);
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) return undefined;
    const rel = relative(root, real);
    if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
      warnings.push(`${manifestFile}: ${key} ${JSON.stringify(written)} leaves the plugin's folder; ignored`);
      return undefined;
    }
    return real;
  };
  const paths = async (key: "commands" | "agents" | "skills" | "outputStyles"): Promise<string[]> => {
    const written = manifest[key];
    const list = written === undefined ? [] : Array.isArray(written) ? written : [written];
    const out: string[] = [];
    const folder = key === "outputStyles" ? "output-styles" : key;
    for (const entry of [`./${folder}`, ...list]) {
      if (typeof entry !== "string") {
        warnings.push(`${manifestFile}: ${key} must be a path or a list of paths; an entry was ignored`);
        continue;
      }
      const path = await inside(entry, key);
      if (path !== undefined && !out.includes(path)) out.push(path);
    }
    return out;
  };
  plugin.commands = await paths("commands");
  plugin.agents = await paths("agents");
  plugin.skills = (await paths("skills")).filter((p) => !p.toLowerCase().endsWith(".md"));
  plugin.outputStyles = (await paths("outputStyles")).filter((p) => !p.toLowerCase().endsWith(".md"));

  const configs = async (
    key: "hooks" | "mcpServers" | "lspServers",
    defaultFile: string,
    unwrap: (value: Record<string, unknown>) => unknown,
  ): Promise<Array<{ source: string; value: Record<string, unknown> }>> => {
    const out: Array<{ source: string; value: Record<string, unknown> }> = [];
    const written = manifest[key];
    const files = [defaultFile, ...(typeof written === "string" ? [written] : [])];
    const seen = new Set<string>();
    for (const file of files) {
      const path = await inside(file, key);
      if (path === undefined || seen.has(path) || !(await isFile(path))) continue;
      seen.add(path);
      try {
        const value = parseJsonc(await readFile(path, "utf8"));
        const section = isObject(value) ? unwrap(value) : undefined;
        if (isObject(section)) out.push({ source: path, value: section });
        else warnings.push(`${path}: must hold a JSON object; ignored`);
      } catch (error) {
        warnings.push(`${path}: invalid JSON (${(error as Error).message}); ignored`);
      }
    }
    if (isObject(written)) {
      const section = unwrap(written);
      if (isObject(section)) out.push({ source: `${manifestFile} (${key})`, value: section });
    } else if (written !== undefined && typeof written !== "string") {
      warnings.push(`${manifestFile}: ${key} must be a path or an object; ignored`);
    }
    return out;
  };
  // A hooks file is `{"description": …, "hooks": {Event: …}}`; inline in the manifest, `{Event: …}` too.
  plugin.hooks = (await configs("hooks", "./hooks/hooks.json", (v) => (isObject(v.hooks) ? v.hooks : v))).map(
    ({ source, value }) => ({ source, hooks: value }),
  );
  // `.mcp.json` is `{"mcpServers": {…}}`, or the servers themselves.
  plugin.mcpServers = (
    await configs("mcpServers", "./.mcp.json", (v) => (isObject(v.mcpServers) ? v.mcpServers : v))
  ).map(({ source, value }) => ({ source, servers: value }));
  // Claude Code's LSP servers (`.lsp.json`, or `lspServers` in the manifest): named, not run.
  const lsp = await configs("lspServers", "./.lsp.json", (v) => (isObject(v.lspServers) ? v.lspServers : v));
  plugin.lspServers = [...new Set(lsp.flatMap(({ value }) => Object.keys(value)))];
  return plugin;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** Whether the folder holds a plugin: a manifest, or one of the parts' default folders. */
export async function looksLikePlugin(dir: string): Promise<boolean> {
  for (const part of [".claude-plugin/plugin.json", "commands", "agents", "skills", "hooks/hooks.json"]) {
    if (await stat(join(dir, part)).catch(() => undefined)) return true;
  }
  return false;
}
