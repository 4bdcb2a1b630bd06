import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { absolutePath, isInside, resolveRealPath } from "../fs/real-path.js";
import { findGitDirs } from "./git-dir.js";
import type { BashAnalysis } from "./parse-bash-command.js";
import { fileRuleMatches, type PermissionRule } from "./permission-rule.js";
import { readOnlyAnalysis, readOnlyReads } from "./read-only-command.js";

export interface WorkspaceReadCheck {
  /** The folder the command runs in (Bash's working folder). */
  cwd: string;
  home: string;
  /** The workspace folders (the working folder and the additional ones), links resolved. */
  roots: readonly string[];
  /** The deny and ask rules that cover reading: what they name must not be read without asking. */
  readRules: readonly PermissionRule[];
  /** A rule's base with links resolved. */
  realBase: (base: string) => Promise<string>;
}

/**
 * Whether a Bash line may run without asking because it only reads, and only inside the workspace (as
 * Claude Code runs `ls`, `cat`, `grep`, `git status` … within its working folders): every command of it is one
 * `isReadOnlyCommand` proves read-only, every file it names and every folder it searches lies in a workspace
 * folder (links resolved: `cat ~/.ssh/id_rsa` and a link to it are asked), no Read deny or ask rule names what it
 * reads or a file below a folder it searches, and, when it runs git, the repository's configuration names no
 * program git would run (`core.fsmonitor`, a diff or filter driver, an alias, an include).
 */
export async function readsOnlyInWorkspace(
  analysis: BashAnalysis,
  check: WorkspaceReadCheck,
): Promise<boolean> {
  if (!readOnlyAnalysis(analysis)) return false;
  const reads = readOnlyReads(analysis);
  if (!reads) return false;
  const files: string[] = [];
  const folders: string[] = [];
  // After `cd src`, what follows reads from src (a bare `ls` lists it): each folder the line may be in is read.
  const bases = cdFolders(analysis.cds, check.cwd, check.home);
  if (reads.searchesWorkingFolder || bases.length > 1) folders.push(...bases);
  for (const base of bases.slice(1)) {
    const real = await resolveRealPath(base).catch(() => undefined);
    if (real === undefined) return false;
    if (![base, real].every((folder) => check.roots.some((root) => isInside(root, folder)))) return false;
  }
  for (const written of [...reads.paths, ...analysis.reads]) {
    const expanded =
      written === "~" || written.startsWith("~/") ? join(check.home, written.slice(1)) : written;
    // A glob reads what its fixed part leads to: that folder, searched.
    const parts = expanded.split("/");
    const glob = parts.findIndex((part) => /[*?[]/.test(part));
    const fixed =
      glob === -1 ? expanded : parts.slice(0, glob).join("/") || (expanded.startsWith("/") ? "/" : ".");
    for (const base of bases) {
      const path = resolve(base, fixed);
      const real = await resolveRealPath(path).catch(() => undefined);
      if (real === undefined) return false;
      for (const candidate of new Set([path, real])) {
        if (!check.roots.some((root) => isInside(root, candidate))) return false;
        const folder = glob !== -1 || (await stat(candidate).catch(() => undefined))?.isDirectory() === true;
        (folder ? folders : files).push(candidate);
      }
    }
  }
  for (const rule of check.readRules) {
    if (!rule.files) return false; // `Read` as a whole is denied or asked
    const base = await check.realBase(rule.files.base);
    if (files.some((file) => fileRuleMatches(rule, file, base))) return false;
    if (folders.some((folder) => ruleReachesBelow(rule, folder, base))) return false;
  }
  if (!reads.runsGit) return true;
  for (const base of bases) if (!(await gitRunsNothing(base))) return false;
  return true;
}

/**
 * The folders a Bash line may be in: the working folder, and each literal `cd` applied or not, in order
 * (`(cd a); cd b` is in b, `cd a; cd b` in a/b). `~` is the home folder.
 */
export function cdFolders(cds: readonly string[], cwd: string, home: string): string[] {
  let folders = [cwd];
  for (const cd of cds) {
    const next = folders.map((folder) => absolutePath(cd, folder, home));
    folders = [...new Set([...folders, ...next])];
  }
  return folders;
}

/** Whether a file rule could name a file in `folder` or below it (a search there would read it). */
function ruleReachesBelow(rule: PermissionRule, folder: string, realBase: string): boolean {
  const { base, pattern } = rule.files!;
  const anchored = pattern.startsWith("/") || pattern.replace(/\/$/, "").includes("/");
  const fixed: string[] = [];
  if (anchored) {
    for (const part of pattern.replace(/^\//, "").split("/")) {
      if (part === "" || /[*?[\\!]/.test(part)) break;
      fixed.push(part);
    }
  }
  return [base, realBase].some((root) => {
    const start = join(root, ...fixed);
    return isInside(folder, start) || isInside(start, folder);
  });
}

/** Configuration that makes a reading git command run a program, or read more configuration from elsewhere. */
const GIT_RUNS =
  /^\s*\[\s*(filter|diff|include|includeif|alias|difftool|mergetool)\b|\b(fsmonitor|textconv|external|pager|editor|sshcommand|askpass|hookspath|gitproxy)\s*=/im;

/** Whether the repository around `cwd` (its config, and a worktree's common one) names no program git runs. */
async function gitRunsNothing(cwd: string): Promise<boolean> {
  const dirs = await findGitDirs(cwd);
  if (dirs === null) return false;
  if (dirs === undefined) return true; // not in a repository: git reads no repository configuration
  for (const folder of new Set([dirs.gitDir, dirs.commonDir])) {
    for (const name of ["config", "config.worktree"]) {
      const text = await readFile(join(folder, name), "utf8").catch(() => "");
      if (GIT_RUNS.test(text)) return false;
    }
  }
  return true;
}
