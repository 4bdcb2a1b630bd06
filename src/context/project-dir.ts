import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where a project's sessions and memory live: `<home>/.mitsu/projects/<slug>`. */
export interface ProjectDirOptions {
  cwd: string;
  /** Default `os.homedir()`. */
  home?: string;
}

/** The readable part of a slug keeps at most this many characters of the path (its end, the specific part). */
const MAX_READABLE = 80;

/** The working folder with symbolic links resolved (the same project, however it is reached); as given if it does not exist. */
function realFolder(cwd: string): string {
  const absolute = resolve(cwd);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

/**
 * A folder name for a project, unique to its real path: the path made readable (every character that is not a
 * letter or digit replaced by `-`, its end kept) and a short hash of the exact path, so `/x/p-q` and `/x/p/q`
 * no longer share their sessions and memory (`/work/main` → `-work-main-1f4e7c0a93b2`).
 */
export function projectSlug(cwd: string): string {
  const real = realFolder(cwd);
  const readable = real.replace(/[^A-Za-z0-9]/g, "-").slice(-MAX_READABLE);
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 12);
  return `${readable}-${hash}`;
}

/**
 * The slug of mitsu before 0.2: the path with every non-alphanumeric character replaced by `-`. It is not
 * unique (`/x/p-q` and `/x/p/q` share it): read from, never written to.
 */
export function legacyProjectSlug(cwd: string): string {
  return resolve(cwd).replace(/[^A-Za-z0-9]/g, "-");
}

/** `<home>/.mitsu/projects/<slug>`. Not created here (see `prepareProjectDir`). */
export function projectDir(options: ProjectDirOptions): string {
  return join(options.home ?? homedir(), ".mitsu", "projects", projectSlug(options.cwd));
}

/** Where the project's folder was before slugs were unique; it may be shared with a colliding project. */
export function legacyProjectDir(options: ProjectDirOptions): string {
  return join(options.home ?? homedir(), ".mitsu", "projects", legacyProjectSlug(options.cwd));
}

/**
 * Creates the project's folder, private to the user (0700; tightened when an older version left it open),
 * and the first time, carries the memory of the folder under the old slug over (copied: the old folder may
 * be shared with another project that still reads it). Old sessions stay where they are: `-c` reads them
 * there. Returns the folder. Never throws for a copy that fails: the memory then starts empty.
 */
export function prepareProjectDir(options: ProjectDirOptions): string {
  const dir = projectDir(options);
  const fresh = !existsSync(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const stats = statSync(dir);
    if ((stats.mode & 0o077) !== 0 && (process.getuid === undefined || stats.uid === process.getuid())) {
      chmodSync(dir, 0o700);
    }
  } catch {
    // not ours to change
  }
  const oldMemory = join(legacyProjectDir(options), "memory");
  if (fresh && existsSync(oldMemory)) {
    try {
      cpSync(oldMemory, join(dir, "memory"), { recursive: true, errorOnExist: false, force: false });
    } catch {
      // the memory starts empty
    }
  }
  return dir;
}
