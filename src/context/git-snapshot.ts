import { execFile } from "node:child_process";

/** The repository state at session start. Taken once: the system prompt must not change mid-session. */
export type GitSnapshot =
  | {
      repository: true;
      /** The branch name, or `(detached HEAD at <sha>)`. */
      branch: string;
      /** `git status --short` lines, capped at `maxStatusLines`. */
      status: string[];
      /** How many status lines were left out by the cap. */
      statusOmitted: number;
      /** `git log --oneline -5`; empty in a repository without commits. */
      recentCommits: string[];
    }
  | { repository: false; reason: string };

export interface GitSnapshotOptions {
  /** Per git command; a slow or hung git must not stall the session start. Default 3000 ms. */
  timeoutMs?: number;
  /** Default 30. */
  maxStatusLines?: number;
  /** The git binary; default `git`. */
  gitPath?: string;
}

/** Runs git with a timeout. Resolves to its output, or why it failed: git is missing, or it said no (not a repo, a timeout). */
function git(
  args: string[],
  cwd: string,
  options: GitSnapshotOptions,
): Promise<{ stdout: string } | { missing: boolean }> {
  return new Promise((resolve) => {
    execFile(
      options.gitPath ?? "git",
      args,
      {
        cwd,
        timeout: options.timeoutMs ?? 3000,
        maxBuffer: 4 * 1024 * 1024,
        // Never take the index lock: the user (or another process) may be using git at the same time.
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" },
        windowsHide: true,
      },
      (error, stdout) =>
        resolve(error ? { missing: (error as NodeJS.ErrnoException).code === "ENOENT" } : { stdout }),
    );
  });
}

function lines(text: string | undefined): string[] {
  return (text ?? "").split("\n").filter((line) => line.trim() !== "");
}

/**
 * Two git processes, side by side: `status --branch` (is it a repository, the branch, the changes) and
 * `log` (the recent commits). The session's first request waits for them, so they must not run in series.
 */
export async function takeGitSnapshot(cwd: string, options: GitSnapshotOptions = {}): Promise<GitSnapshot> {
  const [statusOut, logOut] = await Promise.all([
    git(["status", "--branch", "--short"], cwd, options),
    git(["log", "--oneline", "-5"], cwd, options),
  ]);
  if (!("stdout" in statusOut)) {
    return {
      repository: false,
      reason: statusOut.missing ? "git is not available" : "not a git repository",
    };
  }
  const [head = "", ...changes] = lines(statusOut.stdout);
  const recentCommits = "stdout" in logOut ? lines(logOut.stdout) : [];
  const max = options.maxStatusLines ?? 30;
  return {
    repository: true,
    branch: branchOf(head, recentCommits[0]),
    status: changes.slice(0, max),
    statusOmitted: Math.max(0, changes.length - max),
    recentCommits,
  };
}

/** The branch from `## main...origin/main [ahead 1]`, `## No commits yet on main` or `## HEAD (no branch)`. */
function branchOf(head: string, lastCommit: string | undefined): string {
  const text = head.replace(/^## /, "");
  if (text.startsWith("HEAD (no branch)")) {
    const sha = lastCommit?.split(" ")[0];
    return sha ? `(detached HEAD at ${sha})` : "(unknown)";
  }
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(text);
  if (unborn?.[1]) return unborn[1];
  return text.split("...")[0]?.trim() || "(unknown)";
}

/** The snapshot as text for the system prompt. */
export function renderGitSnapshot(snapshot: GitSnapshot): string {
  if (!snapshot.repository) return `Git: ${snapshot.reason}.`;
  const status =
    snapshot.status.length === 0
      ? "(clean)"
      : [
          ...snapshot.status,
          ...(snapshot.statusOmitted > 0 ? [`… and ${snapshot.statusOmitted} more lines`] : []),
        ].join("\n");
  const commits =
    snapshot.recentCommits.length === 0 ? "(no commits yet)" : snapshot.recentCommits.join("\n");
  return [
    "Git status at the start of this session (a snapshot: it does not update during the conversation).",
    `Current branch: ${snapshot.branch}`,
    "",
    `Status:\n${status}`,
    "",
    `Recent commits:\n${commits}`,
  ].join("\n");
}
