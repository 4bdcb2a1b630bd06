import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** One approved project settings file in `~/.mitsu/approved-hooks.json`. */
interface ApprovedHooks {
  /** The settings file's real path. */
  file: string;
  /** sha256 of its `hooks` value as read: a changed file (a pull, a new commit) is asked about again. */
  sha256: string;
  /** ISO 8601. */
  approvedAt: string;
}

export function approvalsPath(home: string): string {
  return join(home, ".mitsu", "approved-hooks.json");
}

/** The fingerprint an approval is kept under: the exact text of the file's `hooks` value, re-serialised. */
export function hooksFingerprint(hooks: unknown): string {
  return createHash("sha256").update(JSON.stringify(hooks)).digest("hex");
}

/** The approvals; a missing or damaged file is none (approval never comes from a damaged file). */
async function readApprovals(home: string): Promise<ApprovedHooks[]> {
  try {
    const value = JSON.parse(await readFile(approvalsPath(home), "utf8")) as { files?: unknown };
    if (!Array.isArray(value.files)) return [];
    return value.files.filter(
      (entry): entry is ApprovedHooks =>
        typeof entry === "object" &&
        entry !== null &&
        typeof (entry as ApprovedHooks).file === "string" &&
        typeof (entry as ApprovedHooks).sha256 === "string",
    );
  } catch {
    return [];
  }
}

/** Whether the user approved these hooks of this file (same real path, same content). */
export async function isHooksFileApproved(home: string, file: string, sha256: string): Promise<boolean> {
  return (await readApprovals(home)).some((entry) => entry.file === file && entry.sha256 === sha256);
}

/**
 * Remembers the user's approval of a project settings file's hooks, as the workspace trust store keeps
 * trusted folders: written whole by rename, 0600 in a 0700 folder, so only the user (and mitsu) writes it —
 * the model's writes under `~/.mitsu/` are always asked.
 */
export async function approveHooksFile(home: string, file: string, sha256: string): Promise<void> {
  const path = approvalsPath(home);
  const dir = join(path, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const files = (await readApprovals(home)).filter((entry) => entry.file !== file);
  files.push({ file, sha256, approvedAt: new Date().toISOString() });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, files }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, path);
}
