import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { editPermissions } from "./edit-permissions.js";
import { findGitDirs } from "./git-dir.js";
import { rememberOwnRules } from "./own-rules.js";

/**
 * Adds allow rules to the project's untracked `.mitsu/settings.local.json` (what "always" at a permission
 * question means, as in Claude Code): the rules already there stay, a rule already there is not repeated, the
 * file's other keys are kept. Written to a temporary file and renamed, so a crash leaves the old file whole.
 * Throws when the file exists but is not a JSON object (it is left as it is). Resolves to the file's path.
 *
 * With `home`, the rules are also remembered as the user's own (`~/.mitsu/own-rules.json`, see `readOwnRules`):
 * they count at the next start even in a folder not trusted, without a trust question. And the file is kept out
 * of git, as Claude Code keeps its local settings: its path goes to the repository's `.git/info/exclude`.
 */
export async function saveLocalAllowRules(
  cwd: string,
  rules: readonly string[],
  options: { home?: string } = {},
): Promise<string> {
  const file = join(cwd, ".mitsu", "settings.local.json");
  await editPermissions(file, "the rules were not saved", (permissions) => {
    const allow = Array.isArray(permissions.allow) ? (permissions.allow as unknown[]) : [];
    for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
    permissions.allow = allow;
  });
  if (options.home !== undefined) await rememberOwnRules(file, rules, options.home);
  await excludeFromGit(file).catch(() => undefined);
  return file;
}

/** Adds `file` to its repository's `.git/info/exclude`, unless that names it already. */
async function excludeFromGit(file: string): Promise<void> {
  const dirs = await findGitDirs(dirname(file));
  if (!dirs) return;
  const line = `/${relative(dirs.root, file).split(sep).join("/")}`;
  const exclude = join(dirs.commonDir, "info", "exclude");
  const text = await readFile(exclude, "utf8").catch(() => "");
  if (text.split("\n").some((l) => l.trim() === line)) return;
  await mkdir(dirname(exclude), { recursive: true });
  await appendFile(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`);
}
