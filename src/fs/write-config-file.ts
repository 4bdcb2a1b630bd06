import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes a small configuration file (`.mcp.json`, settings, stored logins) so that readers see the old file or
 * the new one, never half: a new temporary file beside it (O_EXCL), then a rename over the target. A rename
 * replaces a link at the target rather than writing through it. The file keeps its mode, or gets `mode` when new
 * (0600 for tokens); parent folders are created.
 */
export async function writeConfigFile(path: string, content: string, mode = 0o644): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  const kept = await stat(path).then(
    (stats) => stats.mode & 0o777,
    () => undefined,
  );
  const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, content, { flag: "wx", mode: 0o600 });
    await chmod(temporary, kept ?? mode);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
