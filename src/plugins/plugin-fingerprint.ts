import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { canonicalJson } from "../context/canonical-json.js";
import type { Plugin } from "./read-plugin.js";

const MAX_FILES = 5000;

/**
 * What installing or enabling a plugin approves: its hooks and MCP server configurations and every file of it
 * that is not Markdown (the scripts those commands run), hashed. An update that changes any of them changes the
 * fingerprint, and the plugin's hooks and MCP servers wait for a new approval; an update of its commands', agents'
 * or skills' text does not (they run nothing by themselves).
 */
export async function pluginFingerprint(plugin: Plugin): Promise<string> {
  const files: Array<[string, string]> = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= MAX_FILES) return;
      // The manifest's version and description are not what runs (its inline hooks and servers count above).
      if ([".git", "node_modules", ".claude-plugin"].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !entry.name.toLowerCase().endsWith(".md")) {
        const content = await readFile(path).catch(() => Buffer.alloc(0));
        files.push([relative(plugin.root, path).split(sep).join("/"), sha256(content)]);
      }
    }
  };
  await walk(plugin.root);
  return sha256(
    canonicalJson({
      hooks: plugin.hooks.map((h) => h.hooks),
      mcpServers: plugin.mcpServers.map((m) => m.servers),
      files,
    }),
  );
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
