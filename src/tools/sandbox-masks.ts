import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { HOME_STARTUP_FILES, HOME_STARTUP_FOLDERS, SHELL_STARTUP } from "../permissions/protected-path.js";
import { unixSocketFilter } from "./sandbox-seccomp.js";
import { submoduleGitPaths } from "./sandbox-submodules.js";

/**
 * What stays read-only at the top of every writable root, present or not: git's folder (config, hooks,
 * `commondir`, modules' configs — all of it runs code outside the sandbox at the user's next git command),
 * mitsu's and Claude Code's settings, and the project's MCP servers. Each is a mount point inside the sandbox,
 * so it can be neither written, nor renamed away, nor replaced (`rename` of a mount point fails with EBUSY).
 */
export const ROOT_MASKS = [
  { name: ".git", dir: true },
  { name: ".mitsu", dir: true },
  { name: ".claude", dir: true },
  { name: ".mcp.json", dir: false },
] as const;

/** In a home folder that lies inside a writable root: what runs in every later shell, login, ssh or git command. */
const HOME_MASKS: ReadonlyArray<{ name: string; dir: boolean }> = [
  ...[...SHELL_STARTUP, ...HOME_STARTUP_FILES].map((name) => ({ name, dir: false })),
  ...[".mitsu", ".claude", ...HOME_STARTUP_FOLDERS].map((name) => ({ name, dir: true })),
];

/**
 * The folders between a root and each mask, shallowest first: each is bound onto itself, so that it is a mount
 * point too. A mount point cannot be renamed, but the folder above it can (and the mount moves with it): without
 * these, renaming `~` or `sub` away and making a new one would leave the new `.profile` or `sub/.git` unmasked.
 */
export function maskAncestors(masks: readonly SandboxMask[], roots: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const mask of masks) {
    const root = roots.find((r) => mask.path.startsWith(r.endsWith(sep) ? r : r + sep));
    if (root === undefined) continue;
    for (let dir = dirname(mask.path); dir !== root && dir.startsWith(root); dir = dirname(dir))
      folders.add(dir);
  }
  return [...folders].sort((a, b) => a.split(sep).length - b.split(sep).length || a.localeCompare(b));
}

/** One read-only mount over a protected path. */
export interface SandboxMask {
  path: string;
  /** What is mounted there: the path itself where it exists, else an empty folder or file. */
  source: string;
  /** The path did not exist: bubblewrap creates an empty stand-in on the host as the mount point. */
  placeholder: boolean;
}

/**
 * The masks for `roots` (real paths) and the home folders, those inside a root only (elsewhere the whole
 * filesystem is read-only already). A nested absent path (`~/.config/git` without `~/.config`) is masked at its
 * first absent folder, so that no folder chain is created on the host.
 */
export function sandboxMasks(roots: readonly string[], homes: readonly string[]): SandboxMask[] {
  const wanted: Array<{ path: string; dir: boolean }> = [];
  for (const root of roots) {
    for (const mask of ROOT_MASKS) wanted.push({ path: join(root, mask.name), dir: mask.dir });
    for (const path of submoduleGitPaths(root)) wanted.push({ path, dir: true });
    for (const home of homes) {
      if (home !== root && !home.startsWith(root.endsWith(sep) ? root : root + sep)) continue;
      for (const mask of HOME_MASKS) wanted.push({ path: join(home, mask.name), dir: mask.dir });
    }
  }
  const masks = new Map<string, SandboxMask>();
  for (const { path, dir } of wanted) {
    const mask = maskFor(path, dir);
    if (!masks.has(mask.path)) masks.set(mask.path, mask);
  }
  return [...masks.values()];
}

function maskFor(path: string, dir: boolean): SandboxMask {
  if (present(path)) return { path, source: path, placeholder: false };
  const parent = dirname(path);
  if (parent !== path && !present(parent)) return maskFor(parent, true);
  return { path, source: dir ? assets().emptyDir : assets().emptyFile, placeholder: true };
}

/** Exists on the host, and is not one of our own stand-ins (which are masked again as absent). */
function present(path: string): boolean {
  if (held.has(path)) return false;
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Stand-ins bubblewrap made on the host, by how many running commands mount over them. */
const held = new Map<string, number>();

/** Marks the masks' stand-ins as in use by one more command (call before it starts). */
export function holdPlaceholders(masks: readonly SandboxMask[]): void {
  for (const mask of masks) if (mask.placeholder) held.set(mask.path, (held.get(mask.path) ?? 0) + 1);
}

/**
 * One command that mounted over the stand-ins has ended: the last one out removes each, if it is still an empty
 * folder or an empty file (what bubblewrap made; anything with content was put there by someone else, and stays).
 */
export function releasePlaceholders(masks: readonly SandboxMask[]): void {
  for (const mask of masks) {
    if (!mask.placeholder) continue;
    const count = (held.get(mask.path) ?? 1) - 1;
    if (count > 0) {
      held.set(mask.path, count);
      continue;
    }
    held.delete(mask.path);
    removeStandIn(mask.path);
  }
}

function removeStandIn(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isDirectory()) rmdirSync(path);
    else if (stat.isFile() && stat.size === 0) unlinkSync(path);
  } catch {
    // Gone already, or not empty: nothing of ours to remove.
  }
}

interface Assets {
  dir: string;
  emptyDir: string;
  emptyFile: string;
  /** The seccomp program, or undefined on an architecture without one. */
  filter: string | undefined;
}
let cached: Assets | undefined;

/**
 * The files the sandbox mounts and loads, in a private folder made once per process and removed at exit (with
 * any stand-in still held): an empty read-only folder and file, and the seccomp program.
 */
export function assets(): Assets {
  if (cached && present(cached.emptyFile) && present(cached.emptyDir)) return cached;
  const dir = mkdtempSync(join(tmpdir(), "mitsu-sandbox-"));
  const emptyDir = join(dir, "empty-dir");
  const emptyFile = join(dir, "empty-file");
  mkdirSync(emptyDir);
  writeFileSync(emptyFile, "");
  chmodSync(emptyDir, 0o555);
  chmodSync(emptyFile, 0o444);
  const program = unixSocketFilter();
  let filter: string | undefined;
  if (program) {
    filter = join(dir, "unix-sockets.bpf");
    writeFileSync(filter, program, { mode: 0o444 });
  }
  if (!cached) process.once("exit", cleanUp);
  cached = { dir, emptyDir, emptyFile, filter };
  return cached;
}

function cleanUp(): void {
  for (const path of held.keys()) removeStandIn(path);
  held.clear();
  if (cached) rmSync(cached.dir, { recursive: true, force: true });
}
