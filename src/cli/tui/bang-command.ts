import { spawn } from "node:child_process";

/** What the conversation keeps of a command's output, at most (the start and the end). */
const MAX_KEPT_CHARS = 30_000;

export interface BangResult {
  stdout: string;
  stderr: string;
  /** The exit code; null when a signal (Ctrl-C) ended it. */
  code: number | null;
}

/**
 * `!cmd` at the prompt (Claude Code's bash mode): the user's own command, run at once with `bash -c` in the working
 * folder with the agent's child environment (no provider keys); no permission question, since the user typed it.
 * Ctrl-C (`signal`) stops it and its process group.
 */
export function runBangCommand(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<BangResult> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout = keep(stdout + chunk.toString("utf8"));
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = keep(stderr + chunk.toString("utf8"));
    });
    const stop = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    };
    options.signal?.addEventListener("abort", stop, { once: true });
    child.on("error", (error) => {
      options.signal?.removeEventListener("abort", stop);
      resolve({ stdout, stderr: `${stderr}${error.message}\n`, code: 127 });
    });
    child.on("close", (code) => {
      options.signal?.removeEventListener("abort", stop);
      resolve({ stdout, stderr, code });
    });
  });
}

/** A long output's start and end, with a note of what was cut. */
function keep(text: string): string {
  if (text.length <= MAX_KEPT_CHARS * 2) return text;
  const half = MAX_KEPT_CHARS / 2;
  return `${text.slice(0, half)}\n… (${text.length - 2 * half} characters cut) …\n${text.slice(-half)}`;
}

/**
 * The command and its output as the next prompt carries them to the model (Claude Code's tags), so that the model
 * sees what the user ran and what came of it.
 */
export function bangContext(command: string, result: BangResult): string {
  const cap = (text: string) =>
    text.length > MAX_KEPT_CHARS
      ? `${text.slice(0, MAX_KEPT_CHARS / 2)}\n…\n${text.slice(-MAX_KEPT_CHARS / 2)}`
      : text;
  const code = result.code === null ? "\n(stopped)" : result.code !== 0 ? `\n(exit code ${result.code})` : "";
  return `<bash-input>${command}</bash-input>\n<bash-stdout>${cap(result.stdout).trimEnd()}</bash-stdout><bash-stderr>${cap(result.stderr).trimEnd()}${code}</bash-stderr>`;
}
