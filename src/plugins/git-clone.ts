import { execFile } from "node:child_process";
import { SAFE_GIT_CONFIG } from "../context/git-snapshot.js";

/** A clone that failed: the message says what was cloned and git's own last words. */
export class GitCloneError extends Error {
  override name = "GitCloneError";
}

const CLONE_TIMEOUT_MS = 120_000;

/**
 * `git clone --depth 1` of `url` (a local path, `file://`, `https://`, `git@…`) into `dest`, at `ref` when given,
 * under `SAFE_GIT_CONFIG` (no hooks, no fsmonitor), never prompting for a password. `what` names the source in
 * the error (`GitHub repository owner/repo`).
 */
export function gitClone(
  url: string,
  dest: string,
  options: { ref?: string; what?: string } = {},
): Promise<void> {
  const args = [
    ...SAFE_GIT_CONFIG.flatMap((setting) => ["-c", setting]),
    "clone",
    "--quiet",
    "--depth",
    "1",
    ...(options.ref ? ["--branch", options.ref] : []),
    "--",
    url,
    dest,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      {
        timeout: CLONE_TIMEOUT_MS,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" },
      },
      (error, _stdout, stderr) => {
        if (!error) {
          resolve();
          return;
        }
        const code = (error as NodeJS.ErrnoException).code;
        const why =
          code === "ENOENT"
            ? "git is not installed"
            : (String(stderr).trim().split("\n").filter(Boolean).at(-1) ?? error.message);
        reject(new GitCloneError(`Cannot clone ${options.what ?? url}: ${why}`));
      },
    );
  });
}
