import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { resolveRealPath } from "../fs/real-path.js";

/**
 * The rules mitsu itself saved to a project's `.mitsu/settings.local.json` when the user answered "always":
 * `~/.mitsu/own-rules.json`, `{ "version": 1, "files": { "<settings file, real path>": ["Bash(npm test:*)"] } }`.
 * They are the user's own, so they count in a folder the user has not trusted; the same file's other allow rules
 * (a cloned repository's) still wait for trust. Only mitsu writes it (the model's writes to `~/.mitsu/` are
 * always asked).
 */
export function ownRulesPath(home?: string): string {
  return join(resolve(home ?? homedir()), ".mitsu", "own-rules.json");
}

type OwnRules = Record<string, string[]>;

async function readAll(home?: string): Promise<OwnRules> {
  try {
    const value = JSON.parse(await readFile(ownRulesPath(home), "utf8")) as { files?: unknown };
    const files = value.files;
    if (typeof files !== "object" || files === null || Array.isArray(files)) return {};
    const out: OwnRules = {};
    for (const [file, rules] of Object.entries(files)) {
      if (Array.isArray(rules)) out[file] = rules.filter((rule): rule is string => typeof rule === "string");
    }
    return out;
  } catch {
    return {}; // none yet, or a damaged file: no rule counts as the user's from it
  }
}

const realOf = (file: string) => resolveRealPath(resolve(file)).catch(() => resolve(file));

/** The allow rules mitsu saved to `settingsFile` on the user's answers. */
export async function readOwnRules(settingsFile: string, home?: string): Promise<ReadonlySet<string>> {
  return new Set((await readAll(home))[await realOf(settingsFile)] ?? []);
}

/** Remembers `rules` as saved to `settingsFile` on the user's answer (written whole, by rename, 0600). */
export async function rememberOwnRules(settingsFile: string, rules: readonly string[], home?: string) {
  const file = ownRulesPath(home);
  const dir = join(file, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const all = await readAll(home);
  const key = await realOf(settingsFile);
  all[key] = [...new Set([...(all[key] ?? []), ...rules])];
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, files: all }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}
