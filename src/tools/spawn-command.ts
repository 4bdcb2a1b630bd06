import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { ToolError } from "../loop/tool.js";
import { childEnv } from "../process/child-env.js";
import { startChildWatchdog, watchProcessGroup } from "../process/child-watchdog.js";
import { findExecutable } from "../process/find-executable.js";
import { newProcessTag, PROCESS_TAG_VAR } from "../process/process-tag.js";
import { launchStdio, type SandboxLaunch, type SandboxOptions, sandboxCommand } from "./sandbox.js";
import { holdPlaceholders, releasePlaceholders } from "./sandbox-masks.js";

export interface SpawnCommandOptions {
  shell: string;
  cwd: string;
  /** The environment before provider API keys are dropped (`childEnv`). */
  env: NodeJS.ProcessEnv;
  /** More variables to drop besides the known provider keys. */
  secretEnv?: readonly string[] | undefined;
  /** When set, the command runs inside the bubblewrap sandbox. */
  sandbox?: SandboxOptions | undefined;
}

/** A started command: its process (the leader of its own group) and the end of its watch. */
export interface SpawnedCommand {
  child: ChildProcessByStdio<Writable | null, Readable, Readable>;
  /** Call once the group is gone (idempotent): the watchdog then forgets it. */
  unwatch: () => void;
  /** The tag in the environment of every process the command starts (see `killTagged`). */
  tag: string;
}

/**
 * What runs first in a command's process group: it waits for one line on stdin — written by mitsu once the group
 * is registered with the watchdog — then becomes the program (`exec`: same process, same group) with stdin from
 * /dev/null. Should mitsu die between the spawn and the registration, the gate reads end-of-file and the
 * command never starts: no window in which a command runs unwatched.
 */
const GATE = 'IFS= read -r _ || exit 129; exec "$@" </dev/null';

/**
 * Starts `<shell> -c <command>` — inside the sandbox when one is configured — as the leader of a new process
 * group (`detached`), stdout and stderr piped, with provider keys removed from its environment, and registered
 * with the watchdog so that the group dies with mitsu, even on `kill -9` (`watchProcessGroup`). Throws a ToolError
 * when the shell (or bubblewrap) is not found.
 */
export function spawnCommand(command: string, options: SpawnCommandOptions): SpawnedCommand {
  const launch: Pick<SandboxLaunch, "file" | "args" | "seccomp"> & Partial<SandboxLaunch> = options.sandbox
    ? sandboxCommand(options.shell, command, options.cwd, {
        ...options.sandbox,
        ...(options.sandbox.home === undefined && options.env.HOME ? { home: options.env.HOME } : {}),
      })
    : { file: options.shell, args: ["-c", command] };
  const { file, args } = launch;
  const env = childEnv(options.env, { drop: options.secretEnv ?? [] });
  // Every process of the command carries the tag, `setsid` or not: `killTagged` finds what left the group.
  const tag = newProcessTag();
  env[PROCESS_TAG_VAR] = tag;
  const gated = process.platform !== "win32";
  if (gated && findExecutable(file, env, options.cwd) === undefined) {
    throw new ToolError(
      options.sandbox
        ? `Cannot run the command in the sandbox: bubblewrap (${file}) not found`
        : `Cannot run the command with ${options.shell}: not found`,
    );
  }
  if (!gated) {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { child, unwatch: () => {}, tag };
  }
  startChildWatchdog();
  const masks = launch.masks ?? [];
  // The stand-ins bubblewrap creates for absent protected paths are removed when the last command using them ends.
  holdPlaceholders(masks);
  const io = launchStdio(launch, ["pipe", "pipe", "pipe"]);
  let child: SpawnedCommand["child"];
  try {
    child = spawn("/bin/sh", ["-c", GATE, "mitsu-gate", file, ...args], {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: io.stdio,
    }) as unknown as SpawnedCommand["child"];
  } catch (error) {
    releasePlaceholders(masks);
    throw error;
  } finally {
    io.done();
  }
  if (masks.length > 0) child.once("close", () => releasePlaceholders(masks));
  const unwatch = child.pid !== undefined ? watchProcessGroup(child.pid) : () => {};
  child.stdin?.on("error", () => {}); // the gate is gone (the program could not start): the exit says why
  child.stdin?.end("\n");
  return { child, unwatch, tag };
}
