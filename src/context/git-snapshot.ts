import { execFile } from "node:child_process";
import { childEnv } from "../process/child-env.js";

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
  /** The environment git starts from, provider keys dropped (`childEnv`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** More variables git never sees (models.json's `apiKeyEnv` names). */
  secretEnv?: readonly string[];
}

/**
 * Settings that keep a repository's own config from running code just because mitsu started in it: the
 * fsmonitor hook (run by `git status`), hooks, signature checks (`gpg.program`, run by `git log` under
 * `log.showSignature`), the submodule summary, automatic gc and pagers. They win over every config file.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "log.showSignature=false",
  "status.submoduleSummary=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "core.pager=cat",
];

type Git = (args: string[]) => Promise<string | undefined>;

/** Runs git with a timeout. Resolves to undefined on any failure (not a repo, no git, timeout). */
function gitRunner(cwd: string, options: GitSnapshotOptions, config: readonly string[]): Git {
  // Never take the index lock: the user (or another process) may be using git at the same time.
  const env = {
    ...childEnv(options.env ?? process.env, { drop: options.secretEnv ?? [] }),
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
  };
  const prefix = ["--no-pager", ...config.flatMap((setting) => ["-c", setting])];
  return (args) =>
    new Promise((resolve) => {
      execFile(
        options.gitPath ?? "git",
        [...prefix, ...args],
        { cwd, timeout: options.timeoutMs ?? 3000, maxBuffer: 4 * 1024 * 1024, env, windowsHide: true },
        (error, stdout) => resolve(error ? undefined : stdout),
      );
    });
}

/**
 * The repository's own filter drivers (`filter.<name>.clean` and the like, in `.git/config` or a file it
 * includes) turned off: `git status` runs a clean filter on every file whose stat data changed, and a
 * downloaded repository's config is not the user's. The user's global filters (git-lfs) stay.
 */
async function repositoryFilterOverrides(git: Git): Promise<string[]> {
  const keys = await git([
    "config",
    "--local",
    "--includes",
    "--name-only",
    "--get-regexp",
    "^filter\\..*\\.(clean|smudge|process)$",
  ]);
  const drivers = new Set(lines(keys).map((key) => key.slice("filter.".length, key.lastIndexOf("."))));
  return [...drivers].flatMap((name) => ["clean", "smudge", "process"].map((k) => `filter.${name}.${k}=`));
}

function lines(text: string | undefined): string[] {
  return (text ?? "").split("\n").filter((line) => line.trim() !== "");
}

/**
 * Branch, short status and recent commits, read with git under `SAFE_GIT_CONFIG` and the repository's filter
 * drivers off, in the scrubbed environment of `childEnv`: starting mitsu in a folder runs none of its code.
 */
export async function takeGitSnapshot(cwd: string, options: GitSnapshotOptions = {}): Promise<GitSnapshot> {
  const probe = gitRunner(cwd, options, SAFE_GIT_CONFIG);
  const inside = await probe(["rev-parse", "--is-inside-work-tree"]);
  if (inside?.trim() !== "true") {
    const version = await probe(["--version"]);
    return {
      repository: false,
      reason: version === undefined ? "git is not available" : "not a git repository",
    };
  }
  const git = gitRunner(cwd, options, [...SAFE_GIT_CONFIG, ...(await repositoryFilterOverrides(probe))]);
  const [branchOut, statusOut, logOut] = await Promise.all([
    git(["branch", "--show-current"]),
    // Submodules are compared by commit only: their work trees would be read with their own config.
    git(["status", "--short", "--ignore-submodules=dirty"]),
    git(["log", "--oneline", "-5"]),
  ]);
  let branch = branchOut?.trim() ?? "";
  if (branch === "") {
    const sha = (await git(["rev-parse", "--short", "HEAD"]))?.trim();
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
