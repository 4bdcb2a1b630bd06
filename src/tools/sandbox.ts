import { spawn } from "node:child_process";
import { closeSync, lstatSync, openSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, resolve } from "node:path";
import {
  assets,
  holdPlaceholders,
  maskAncestors,
  ROOT_MASKS,
  releasePlaceholders,
  type SandboxMask,
  sandboxMasks,
} from "./sandbox-masks.js";

/** How Bash commands are confined (Linux, bubblewrap). */
export interface SandboxOptions {
  /** Folders the command may write (the workspace roots); everything else is read-only to it. */
  writableRoots: string[];
  /**
   * More writable folders whose real paths were fixed earlier (folders added to the workspace, resolved when they
   * were added): each is bound only while it still is that real path, so a folder swapped for a link since widens
   * nothing.
   */
  fixedRoots?: readonly string[];
  /** Let commands reach the network. Default false: the command gets a network namespace of its own, with no route out. */
  allowNetwork?: boolean;
  /**
   * Let commands connect to unix sockets (ssh-agent, docker.sock, a desktop bus). Default false: creating a unix
   * socket fails with EPERM (a seccomp filter), since a read-only filesystem does not stop `connect()`.
   */
  allowUnixSockets?: boolean;
  /** The home folder: where it lies inside a writable root, its shell start-up files stay read-only. */
  home?: string;
  /** The bubblewrap program. Default `bwrap` (on the PATH). */
  bwrap?: string;
}

/** How to start a sandboxed command; see `sandboxCommand`. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  /** A seccomp program to open read-only on the child's file descriptor 3 (`--seccomp 3`). */
  seccomp?: string;
  /** The read-only mounts over protected paths; `holdPlaceholders` before the start, `releasePlaceholders` after. */
  masks: SandboxMask[];
}

/**
 * Paths at the top of every writable root that stay read-only in the sandbox, present or not: what a command
 * could use to grant itself more next time (settings, skills, hooks and MCP servers of mitsu and Claude Code, and
 * all of `.git`, whose config, hooks and `commondir` run code outside the sandbox). See `sandboxMasks`.
 */
export const SANDBOX_PROTECTED = ROOT_MASKS.map((mask) => mask.name);

/** The sandbox cannot run here; the message says what to install or change. Never a silent fallback. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/**
 * The program and arguments that run `<shell> -c <command>` in `cwd` inside the sandbox: the whole filesystem
 * bound read-only, a private `/tmp`, fresh `/dev` and `/proc`, the writable roots bound read-write, with
 * `.git`, `.mitsu`, `.claude` and `.mcp.json` at their top (and a home folder's start-up files, where the home
 * folder lies inside a root) mounted read-only — over an empty stand-in where they do not exist, so that they
 * cannot be created either; no unix sockets (a seccomp filter) unless allowed; its own PID namespace (so nothing
 * it starts survives it), and its own network namespace unless the network is allowed. bwrap dies with its
 * parent, and the command's namespace with bwrap.
 */
export function sandboxCommand(
  shell: string,
  command: string,
  cwd: string,
  options: SandboxOptions,
): SandboxLaunch {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const fixed = (options.fixedRoots ?? []).filter((root) => realOrResolved(root) === root);
  const roots = [...options.writableRoots.map(realOrResolved), ...fixed];
  for (const root of roots) args.push("--bind", root, root);
  const homes = [...new Set([options.home, homedir()].filter((h): h is string => !!h).map(realOrResolved))];
  const masks = sandboxMasks(roots, homes);
  for (const folder of maskAncestors(masks, roots)) args.push("--bind", folder, folder);
  for (const mask of masks) {
    const link = linkOnTheWay(mask.path);
    if (link !== undefined) {
      throw new SandboxUnavailableError(
        `${link} is a symbolic link: the sandbox keeps what it names read-only, but a command could replace the link itself (and write a new ${mask.path}). Replace the link with what it points to, or turn the sandbox off for this folder.`,
      );
    }
    args.push("--ro-bind", mask.source, mask.path);
  }
  let seccomp: string | undefined;
  if (!options.allowUnixSockets) {
    seccomp = assets().filter;
    if (seccomp === undefined) {
      throw new SandboxUnavailableError(
        `The Bash sandbox has no unix-socket filter for this architecture (${process.arch}); set "sandbox": {"allowUnixSockets": true} in ~/.mitsu/settings.json to run without it, or turn the sandbox off.`,
      );
    }
    args.push("--seccomp", "3");
  }
  args.push("--unshare-pid", "--die-with-parent", "--new-session");
  if (!options.allowNetwork) args.push("--unshare-net");
  args.push("--chdir", realOrResolved(cwd), "--", shell, "-c", command);
  return { file: options.bwrap ?? "bwrap", args, ...(seccomp ? { seccomp } : {}), masks };
}

/**
 * Spawn options' `stdio` for a launch: `base` plus, when a seccomp program is loaded, its file opened on fd 3.
 * Call `done` once the child is spawned (it closes mitsu's copy of that descriptor).
 */
export function launchStdio<T extends StdioOptionsArray>(
  launch: Pick<SandboxLaunch, "seccomp">,
  base: T,
): { stdio: T; done: () => void } {
  if (!launch.seccomp) return { stdio: base, done: () => {} };
  const fd = openSync(launch.seccomp, "r");
  let open = true;
  return {
    stdio: [...base, fd] as unknown as T,
    done: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

type StdioOptionsArray = Array<"pipe" | "ignore" | "inherit" | number>;

/**
 * The masked path, or the first folder on its way, when it is a symbolic link: bubblewrap mounts over the link's
 * target, and the link itself (in a writable folder) could be removed and replaced by a real file or folder.
 */
function linkOnTheWay(path: string): string | undefined {
  try {
    if (lstatSync(path).isSymbolicLink()) return path;
  } catch {
    // Absent: a stand-in is mounted there.
  }
  const parent = dirname(path);
  return realOrResolved(parent) === parent ? undefined : parent;
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Checks once that the sandbox can start here (bubblewrap installed, namespaces allowed) by running `true` in it.
 * Throws `SandboxUnavailableError` with what to do: mitsu never runs a command unconfined when the sandbox is on.
 */
export async function checkSandbox(options: SandboxOptions & { cwd: string }): Promise<void> {
  if (process.platform !== "linux") {
    throw new SandboxUnavailableError(
      `The Bash sandbox needs Linux (bubblewrap); this is ${process.platform}. Turn the sandbox off (no --sandbox, "sandbox": {"enabled": false}) to run commands unconfined.`,
    );
  }
  const launch = sandboxCommand("/bin/sh", "true", options.cwd, options);
  const { file, args } = launch;
  holdPlaceholders(launch.masks);
  const outcome = await new Promise<{ code: number | null; error?: NodeJS.ErrnoException; stderr: string }>(
    (done) => {
      let stderr = "";
      const io = launchStdio(launch, ["ignore", "ignore", "pipe"]);
      const child = spawn(file, args, { stdio: io.stdio });
      io.done();
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      child.once("error", (error: NodeJS.ErrnoException) => done({ code: null, error, stderr }));
      child.once("close", (code) => done({ code, stderr }));
    },
  ).finally(() => releasePlaceholders(launch.masks));
  if (outcome.error?.code === "ENOENT") {
    throw new SandboxUnavailableError(
      `The Bash sandbox is on, but bubblewrap (${file}) is not installed. Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or turn the sandbox off to run commands unconfined.`,
    );
  }
  if (outcome.error || outcome.code !== 0) {
    const why = outcome.error?.message ?? (outcome.stderr.trim() || `exit code ${outcome.code}`);
    throw new SandboxUnavailableError(
      `The Bash sandbox is on, but bubblewrap cannot start here: ${why}. Unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap); or turn the sandbox off to run commands unconfined.`,
    );
  }
}
