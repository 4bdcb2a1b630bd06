import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `content` to `path` so that readers see the old file or the new one, never half of it: a
 * temporary file in the same folder (same filesystem, so `rename` is atomic), then a rename over the
 * target. An existing file keeps its mode (an executable script stays executable). Parent folders are
 * created. On failure the temporary file is removed and the target is left as it was.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  const mode = await stat(path).then(
    (stats) => stats.mode & 0o7777,
    () => undefined,
  );
  const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString("hex")}.mitsu-tmp`);
  try {
    await writeFile(temporary, content, { flag: "wx", ...(mode === undefined ? {} : { mode }) });
    // `mode` on creation is filtered by the umask; set it exactly so the file keeps what it had.
    if (mode !== undefined) await chmod(temporary, mode);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
