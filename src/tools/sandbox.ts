import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";

/** How Bash commands are confined (Linux, bubblewrap). */
export interface SandboxOptions {
  /** Folders the command may write (the workspace roots); everything else is read-only to it. */
  writableRoots: string[];
  /** Let commands reach the network. Default false: the command gets a network namespace of its own, with no route out. */
  allowNetwork?: boolean;
  /** The bubblewrap program. Default `bwrap` (on the PATH). */
  bwrap?: string;
}

/**
 * Paths inside a writable root that stay read-only in the sandbox, when they exist: what a command could use to
 * grant itself more next time (settings, skills, hooks of mitsu and Claude Code, git hooks and configuration,
 * which run code outside the sandbox).
 */
export const SANDBOX_PROTECTED = [".mitsu", ".claude", ".git/hooks", ".git/config"] as const;

/** The sandbox cannot run here; the message says what to install or change. Never a silent fallback. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/**
 * The program and arguments that run `<shell> -c <command>` in `cwd` inside the sandbox: the whole filesystem
 * bound read-only, a private `/tmp`, fresh `/dev` and `/proc`, the writable roots bound read-write (minus the
 * protected paths), its own PID namespace (so nothing it starts survives it), and its own network namespace
 * unless the network is allowed. bwrap dies with its parent, and the command's namespace with bwrap.
 */
export function sandboxCommand(
  shell: string,
  command: string,
  cwd: string,
  options: SandboxOptions,
): { file: string; args: string[] } {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const root of options.writableRoots.map(realOrResolved)) {
    args.push("--bind", root, root);
    for (const inner of SANDBOX_PROTECTED) {
      const path = join(root, inner);
      if (existsSync(path)) args.push("--ro-bind", path, path);
    }
  }
  args.push("--unshare-pid", "--die-with-parent", "--new-session");
  if (!options.allowNetwork) args.push("--unshare-net");
  args.push("--chdir", realOrResolved(cwd), "--", shell, "-c", command);
  return { file: options.bwrap ?? "bwrap", args };
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
  const { file, args } = sandboxCommand("/bin/sh", "true", options.cwd, options);
  const outcome = await new Promise<{ code: number | null; error?: NodeJS.ErrnoException; stderr: string }>(
    (done) => {
      let stderr = "";
      const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"] });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      child.once("error", (error: NodeJS.ErrnoException) => done({ code: null, error, stderr }));
      child.once("close", (code) => done({ code, stderr }));
    },
  );
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
