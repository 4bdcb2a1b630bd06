import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** The built `mitsu` command (`npm test` builds first; run `npm run build` before a targeted run). */
export const MITSU_BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");

export interface BinRun {
  child: ChildProcess;
  /** Resolves when the process has exited, with its code (or 128 + signal number) and output. */
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

const SIGNALS: Record<string, number> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/**
 * Starts `node dist/cli/bin.js <args>` as a real process, asynchronously (the simulator answering it runs in
 * the test's own event loop). `env` is the whole environment; stdin is closed unless `input` is given.
 */
export function startMitsu(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): BinRun {
  const child = spawn(process.execPath, [MITSU_BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdin?.end(options.input ?? "");
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    child.once("close", (code, signal) =>
      resolve({ code: code ?? 128 + (SIGNALS[signal ?? ""] ?? 0), stdout, stderr }),
    );
  });
  return { child, done };
}

/** Runs `mitsu <args>` to its end. */
export function runMitsuBin(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return startMitsu(args, options).done;
}
