import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Adds allow rules to the project's untracked `.mitsu/settings.local.json` (what "always" at a permission
 * question means, as in Claude Code): the rules already there stay, a rule already there is not repeated, the
 * file's other keys are kept. Written to a temporary file and renamed, so a crash leaves the old file whole.
 * Throws when the file exists but is not a JSON object (it is left as it is). Resolves to the file's path.
 */
export async function saveLocalAllowRules(cwd: string, rules: readonly string[]): Promise<string> {
  const file = join(cwd, ".mitsu", "settings.local.json");
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  const settings = text === undefined ? {} : (JSON.parse(text) as unknown);
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw new Error(`${file} is not a JSON object; the rules were not saved`);
  }
  const record = settings as { permissions?: { allow?: unknown } };
  const existing = record.permissions;
  const permissions =
    typeof existing === "object" && existing !== null && !Array.isArray(existing) ? existing : {};
  record.permissions = permissions;
  const allow = Array.isArray(permissions.allow) ? (permissions.allow as unknown[]) : [];
  for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
  permissions.allow = allow;
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(settings, null, 2)}\n`);
  await rename(temp, file);
  return file;
}
