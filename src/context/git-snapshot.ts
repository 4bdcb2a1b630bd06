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

/** Runs git with a timeout. Resolves to undefined on any failure (not a repo, no git, timeout). */
function git(args: string[], cwd: string, options: GitSnapshotOptions): Promise<string | undefined> {
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
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}

function lines(text: string | undefined): string[] {
  return (text ?? "").split("\n").filter((line) => line.trim() !== "");
}

export async function takeGitSnapshot(cwd: string, options: GitSnapshotOptions = {}): Promise<GitSnapshot> {
  const inside = await git(["rev-parse", "--is-inside-work-tree"], cwd, options);
  if (inside?.trim() !== "true") {
    const version = await git(["--version"], cwd, options);
    return {
      repository: false,
      reason: version === undefined ? "git is not available" : "not a git repository",
    };
  }
  const [branchOut, statusOut, logOut] = await Promise.all([
    git(["branch", "--show-current"], cwd, options),
    git(["status", "--short"], cwd, options),
    git(["log", "--oneline", "-5"], cwd, options),
  ]);
  let branch = branchOut?.trim() ?? "";
  if (branch === "") {
    const sha = (await git(["rev-parse", "--short", "HEAD"], cwd, options))?.trim();
    branch = sha ? `(detached HEAD at ${sha})` : "(unknown)";
  }
  const max = options.maxStatusLines ?? 30;
  const all = lines(statusOut);
  return {
    repository: true,
    branch,
    status: all.slice(0, max),
    statusOmitted: Math.max(0, all.length - max),
    recentCommits: lines(logOut),
  };
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
