import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { buildCommandEnv } from "./build-command-env.js";
import { type SandboxOptions, sandboxCommand } from "./sandbox.js";

export interface SpawnCommandOptions {
  shell: string;
  cwd: string;
  /** The environment before provider API keys are dropped. */
  env: NodeJS.ProcessEnv;
  /** When set, the command runs inside the bubblewrap sandbox. */
  sandbox?: SandboxOptions | undefined;
}

/**
 * Starts `<shell> -c <command>` as the leader of a new process group (`detached`), stdin empty, stdout and stderr
 * piped, with provider API keys removed from its environment; inside the sandbox when one is configured.
 */
export function spawnCommand(
  command: string,
  options: SpawnCommandOptions,
): ChildProcessByStdio<null, Readable, Readable> {
  const { file, args } = options.sandbox
    ? sandboxCommand(options.shell, command, options.cwd, options.sandbox)
    : { file: options.shell, args: ["-c", command] };
  return spawn(file, args, {
    cwd: options.cwd,
    env: buildCommandEnv(options.env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
}
