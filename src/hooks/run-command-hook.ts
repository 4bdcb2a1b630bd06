import { spawn } from "node:child_process";
import { watchProcessGroup } from "../process/child-watchdog.js";
import { type HookOutcome, readCommandOutcome } from "./hook-answer.js";
import type { HookInput } from "./hook-event.js";

/** The most of a hook's stdout and of its stderr that is kept (the rest is dropped, the hook is not stopped). */
const MAX_OUTPUT = 1024 * 1024;

export interface RunCommandHookOptions {
  command: string;
  input: HookInput;
  /** The project folder: the hook's working folder and `MITSU_PROJECT_DIR` / `CLAUDE_PROJECT_DIR`. */
  cwd: string;
  /** The scrubbed child environment (no provider keys). */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Runs one `type: "command"` hook: `sh -c command` in its own process group, in the project folder, the
 * event's JSON on stdin. At its timeout (or on abort) the whole group is killed and the outcome is an error;
 * a hook that cannot start, crashes or closes its stdin early is an error too. Never throws.
 */
export function runCommandHook(options: RunCommandHookOptions): Promise<HookOutcome> {
  const event = options.input.hook_event_name;
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("/bin/sh", ["-c", options.command], {
        cwd: options.cwd,
        env: { ...options.env, MITSU_PROJECT_DIR: options.cwd, CLAUDE_PROJECT_DIR: options.cwd },
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ kind: "error", message: `could not start: ${(error as Error).message}` });
      return;
    }
    const pid = child.pid;
    const unwatch = pid !== undefined ? watchProcessGroup(pid) : () => {};
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outSize = 0;
    let errSize = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      if (outSize < MAX_OUTPUT) out.push(chunk.subarray(0, MAX_OUTPUT - outSize));
      outSize += chunk.length;
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (errSize < MAX_OUTPUT) err.push(chunk.subarray(0, MAX_OUTPUT - errSize));
      errSize += chunk.length;
    });
    let stopped: string | undefined;
    const killGroup = (why: string) => {
      stopped ??= why;
      if (pid === undefined) return;
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () => killGroup(`timed out after ${Math.round(options.timeoutMs / 100) / 10} s and was killed`),
      options.timeoutMs,
    );
    const onAbort = () => killGroup("was interrupted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let settled = false;
    const finish = (outcome: HookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      unwatch();
      resolve(outcome);
    };
    child.on("error", (error) => {
      killGroup("failed");
      finish({ kind: "error", message: `could not run: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      // The group may outlive the shell (a background child holding no pipe): it goes with the hook.
      if (pid !== undefined) {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      if (stopped) return finish({ kind: "error", message: stopped });
      if (code === null) return finish({ kind: "error", message: `was killed by ${signal ?? "a signal"}` });
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      finish(readCommandOutcome(event, code, stdout, stderr));
    });
    // A hook that does not read its input closes the pipe: that is not its failure.
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${JSON.stringify(options.input)}\n`);
  });
}
