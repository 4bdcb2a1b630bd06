import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isInside, resolveRealPath } from "../fs/real-path.js";

/** One trusted folder in `~/.mitsu/trusted-folders.json`. */
export interface TrustedFolder {
  /** The folder's real path (links resolved): trusting it trusts every folder below it. */
  path: string;
  /** ISO 8601. */
  trustedAt: string;
}

export interface TrustStoreOptions {
  /** The home folder that holds `.mitsu/trusted-folders.json`. Default `os.homedir()`. */
  home?: string;
}

/** Where the user's trust decisions live. Only mitsu writes it (the model's writes to `~/.mitsu/` are always asked). */
export function trustStorePath(options: TrustStoreOptions = {}): string {
  return join(resolve(options.home ?? homedir()), ".mitsu", "trusted-folders.json");
}

/**
 * The trusted folders. A missing file is none; a file that cannot be read as the expected JSON is none too
 * (trust must never come from a damaged file), and `onProblem` says why.
 */
export async function readTrustedFolders(
  options: TrustStoreOptions & { onProblem?: (message: string) => void } = {},
): Promise<TrustedFolder[]> {
  const file = trustStorePath(options);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      options.onProblem?.(`Cannot read ${file}: ${(error as Error).message}; no folder is trusted.`);
    }
    return [];
  }
  try {
    const value = JSON.parse(text.replace(/^\uFEFF/, "")) as { folders?: unknown };
    if (!Array.isArray(value.folders)) throw new Error('it has no "folders" array');
    return value.folders.filter(
      (entry): entry is TrustedFolder =>
        typeof entry === "object" && entry !== null && typeof (entry as TrustedFolder).path === "string",
    );
  } catch (error) {
    options.onProblem?.(`${file} is not valid (${(error as Error).message}); no folder is trusted.`);
    return [];
  }
}

/** Whether the user has trusted `folder` or a folder above it (compared by real paths). */
export async function isFolderTrusted(
  folder: string,
  options: TrustStoreOptions & { onProblem?: (message: string) => void } = {},
): Promise<boolean> {
  const real = await resolveRealPath(resolve(folder)).catch(() => resolve(folder));
  const trusted = await readTrustedFolders(options);
  return trusted.some((entry) => entry.path === real || isInside(entry.path, real));
}

/**
 * Remembers that the user trusts `folder` (its real path). The file is written whole, by rename, readable
 * only by the user (0600) in a folder only the user can enter (0700).
 */
export async function trustFolder(folder: string, options: TrustStoreOptions = {}): Promise<string> {
  const real = await resolveRealPath(resolve(folder)).catch(() => resolve(folder));
  const file = trustStorePath(options);
  const dir = join(file, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const folders = (await readTrustedFolders(options)).filter((entry) => entry.path !== real);
  folders.push({ path: real, trustedAt: new Date().toISOString() });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
  return real;
}
