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

/** What one git run gave: its output, or why it gave none (no git binary to run, the timeout, or a failure). */
type GitRun = { ok: true; stdout: string } | { ok: false; why: "missing" | "timeout" | "failed" };
type Git = (args: string[]) => Promise<GitRun>;

/** Runs git with a timeout. Never rejects: a failure (not a repo, no git, timeout) is an unsuccessful run. */
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
        (error, stdout) => {
          if (!error) return resolve({ ok: true, stdout });
          if ((error as NodeJS.ErrnoException).code === "ENOENT")
            return resolve({ ok: false, why: "missing" });
          resolve({ ok: false, why: error.killed ? "timeout" : "failed" });
        },
      );
    });
}

/**
 * The repository's own filter drivers (`filter.<name>.clean` and the like, in `.git/config` or a file it
 * includes) turned off: `git status` runs a clean filter on every file whose stat data changed, and a
 * downloaded repository's config is not the user's. The user's global filters (git-lfs) stay.
 * (`git config --get-regexp` exits 1 when nothing matches, and 128 outside a repository: no drivers either way.)
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
  const drivers = new Set(
    lines(keys.ok ? keys.stdout : "").map((key) => key.slice("filter.".length, key.lastIndexOf("."))),
  );
  return [...drivers].flatMap((name) => ["clean", "smudge", "process"].map((k) => `filter.${name}.${k}=`));
}

function lines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

/**
 * The branch named by the `## ` line that `git status --short --branch` starts with: `## main...origin/main [ahead 1]`,
 * `## main`, `## No commits yet on main` (`Initial commit on` before git 2.28); undefined for `## HEAD (no branch)`.
 * Branch names hold neither spaces nor `...`.
 */
export function branchOfStatusHeader(header: string): string | undefined {
  const rest = header.replace(/^## /, "");
  const unborn = /^(?:No commits yet|Initial commit) on (\S+)$/.exec(rest);
  if (unborn) return unborn[1];
  if (rest.startsWith("HEAD (no branch)")) return undefined;
  const name = rest.split("...")[0]?.split(" ")[0] ?? "";
  return name === "" ? undefined : name;
}

/**
 * Branch, short status and recent commits, read with git under `SAFE_GIT_CONFIG` and the repository's filter
 * drivers off, in the scrubbed environment of `childEnv`: starting mitsu in a folder runs none of its code.
 * Three git processes, two deep: the filter drivers and the log at once, then one `git status --branch`
 * (which needs the drivers off) for the branch and the status together. Outside a repository all three fail fast.
 */
export async function takeGitSnapshot(cwd: string, options: GitSnapshotOptions = {}): Promise<GitSnapshot> {
  const probe = gitRunner(cwd, options, SAFE_GIT_CONFIG);
  const [overrides, log] = await Promise.all([
    repositoryFilterOverrides(probe),
    probe(["log", "--oneline", "-5"]),
  ]);
  const git = gitRunner(cwd, options, [...SAFE_GIT_CONFIG, ...overrides]);
  // Submodules are compared by commit only: their work trees would be read with their own config.
  // `--short` as people read it (paths relative to the working folder); `--branch` adds the branch as a first line.
  const status = await git(["status", "--short", "--branch", "--ignore-submodules=dirty"]);
  if (!status.ok && status.why === "timeout" && log.ok) {
    // A repository too large to read in time: said so, rather than called clean or no repository at all.
    const seconds = (options.timeoutMs ?? 3000) / 1000;
    return {
      repository: true,
      branch: "(unknown)",
      status: [`(git status did not answer within ${seconds} s)`],
      statusOmitted: 0,
      recentCommits: lines(log.stdout),
    };
  }
  if (!status.ok) {
    return {
      repository: false,
      reason: status.why === "missing" ? "git is not available" : "not a git repository",
    };
  }
  const [header = "", ...entries] = lines(status.stdout);
  const recentCommits = log.ok ? lines(log.stdout) : [];
  // Detached: the commit is the log's first line (`git log --oneline` starts with the abbreviated hash).
  const detachedAt = recentCommits[0]?.split(" ")[0];
  const branch =
    branchOfStatusHeader(header) ?? (detachedAt ? `(detached HEAD at ${detachedAt})` : "(unknown)");
  const max = options.maxStatusLines ?? 30;
  return {
    repository: true,
    branch,
    status: entries.slice(0, max),
    statusOmitted: Math.max(0, entries.length - max),
    recentCommits,
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
