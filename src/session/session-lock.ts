import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";

/** Who holds a session file: written into its lock file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
}

/** A held lock on one session file; `release` is idempotent. */
export interface SessionLock {
  /** The lock file: the session file's path + `.lock`. */
  readonly path: string;
  release(): void;
}

/** A lock file that cannot be read back is being written right now, unless it is older than this. */
const UNREADABLE_GRACE_MS = 5_000;
/** A takeover guard left by a process that died while taking over a stale lock is ignored after this. */
const TAKEOVER_GRACE_MS = 10_000;

/** Lock files this process holds: released on exit, and told apart from a stale lock left with our own pid. */
const held = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const path of held) unlinkQuietly(path);
    held.clear();
  });
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof value.pid !== "number" || typeof value.host !== "string" || typeof value.since !== "string") {
      return undefined;
    }
    return { pid: value.pid, host: value.host, since: value.since };
  } catch {
    return undefined;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Creates the lock file if it does not exist (O_EXCL): true when this process now holds it. */
function create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  installExitHook();
  held.add(path);
  return true;
}

/**
 * Whether the lock at `path` is stale: its holder is a process of this machine that no longer runs (killed,
 * crashed), or this very process without holding it (a lock left by an earlier run in the same process). A
 * holder on another machine (a shared home folder) is never presumed dead.
 */
function isStale(path: string, holder: LockHolder | undefined): boolean {
  if (!holder) return ageMs(path) > UNREADABLE_GRACE_MS;
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return !held.has(path);
  return !alive(holder.pid);
}

/**
 * Takes over a stale lock. Two processes may find it stale at once: a guard file (O_EXCL) lets one of them
 * check again and replace it; the other finds the lock held. Returns true when this process holds the lock.
 */
function takeOver(path: string, stale: LockHolder | undefined): boolean {
  const guard = `${path}.takeover`;
  if (ageMs(guard) > TAKEOVER_GRACE_MS) unlinkQuietly(guard);
  let fd: number;
  try {
    fd = openSync(guard, "wx", 0o600);
  } catch {
    return false;
  }
  closeSync(fd);
  try {
    // Replaced only when it is still the lock found stale: another process may have taken it over meanwhile.
    const now = readHolder(path);
    if (JSON.stringify(now) === JSON.stringify(stale) && isStale(path, now)) unlinkQuietly(path);
    return create(path);
  } finally {
    unlinkQuietly(guard);
  }
}

/**
 * Locks the session file at `sessionPath` for appending, with a lock file beside it (`<file>.lock`, created
 * with O_EXCL, holding the pid, the host and the time). A stale lock — its process is gone (`kill -9`, a
 * crash) — is taken over. Returns the lock, or who holds it when another live process does: that process is
 * appending to the file, and a second writer would interleave two conversations in one log. The lock is
 * released by `release()` or when this process exits.
 */
export function lockSession(sessionPath: string): SessionLock | { heldBy: LockHolder | undefined } {
  const path = `${sessionPath}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (create(path)) return handle(path);
    const holder = readHolder(path);
    if (!isStale(path, holder)) return { heldBy: holder };
    if (takeOver(path, holder)) return handle(path);
  }
  return { heldBy: readHolder(path) };
}

function handle(path: string): SessionLock {
  return {
    path,
    release() {
      if (!held.delete(path)) return;
      unlinkQuietly(path);
    },
  };
}
