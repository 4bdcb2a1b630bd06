import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { buildSystemPrompt } from "./build-system-prompt.js";
import { corePrompt } from "./core-prompt.js";
import { localDate } from "./environment.js";
import { renderGitSnapshot, takeGitSnapshot } from "./git-snapshot.js";
import { memoryDir } from "./memory.js";
import { projectSlug } from "./project-dir.js";

const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-ctx-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

function gitRepo(): string {
  const dir = tmp();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "trunk");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "T");
  git("config", "commit.gpgsign", "false");
  for (let i = 1; i <= 6; i++) {
    writeFileSync(join(dir, `f${i}.txt`), String(i));
    git("add", `f${i}.txt`);
    git("commit", "-q", "-m", `commit number ${i}`);
  }
  return dir;
}

const fixed = { now: new Date(2025, 2, 4, 10, 0, 0), env: { SHELL: "/bin/zsh" }, platform: "linux" };

describe("buildSystemPrompt", () => {
  it("is byte-identical across calls with the same inputs", async () => {
    const cwd = gitRepo();
    const options = { cwd, model: "claude-x", home: "/home/u", ...fixed };
    const a = await buildSystemPrompt(options);
    const b = await buildSystemPrompt(options);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.length).toBe(3);
    expect(a.every((block) => block.type === "text" && block.cache_control === undefined)).toBe(true);
  });

  it("holds the core rules, the memory folder, the environment and the git snapshot", async () => {
    const cwd = gitRepo();
    writeFileSync(join(cwd, "dirty.txt"), "x");
    const [core, memory, env] = await buildSystemPrompt({
      cwd,
      model: "claude-x",
      home: "/home/u",
      ...fixed,
    });
    expect(core!.text).toContain("Never commit unless the user asks");
    expect(core!.text).toContain("Read a file before you change it");
    expect(memory!.text).toContain(memoryDir({ cwd, home: "/home/u" }));
    expect(memory!.text).toMatch(/Read and Write|Write and Edit/);
    expect(env!.text).toContain(`Working folder: ${cwd}`);
    expect(env!.text).toContain("Platform: linux");
    expect(env!.text).toContain("Shell: zsh");
    expect(env!.text).toContain("Date at session start: 2025-03-04");
    expect(env!.text).toContain("Model: claude-x");
    expect(env!.text).toContain("Current branch: trunk");
    expect(env!.text).toContain("?? dirty.txt");
    expect(env!.text).toContain("commit number 6");
    expect(env!.text).toContain("commit number 2");
    expect(env!.text).not.toContain("commit number 1\n");
  });

  it("says so outside a repository, and appends extra as its own block", async () => {
    const blocks = await buildSystemPrompt({ cwd: tmp(), model: "m", extra: "You review code.", ...fixed });
    expect(blocks[2]!.text).toContain("Git: not a git repository.");
    expect(blocks[3]!.text).toBe("You review code.");
  });

  it("describes only the built-in tools it is given", () => {
    const text = corePrompt(["Read", "mcp__x__y"]);
    expect(text).toContain("Read reads a file");
    expect(text).not.toContain("Bash runs a shell command");
    expect(corePrompt([])).not.toContain("# Using your tools");
  });
});

describe("git snapshot", () => {
  it("caps the status lines and says how many were left out", async () => {
    const cwd = gitRepo();
    for (let i = 0; i < 12; i++) writeFileSync(join(cwd, `new${i}.txt`), "x");
    const snapshot = await takeGitSnapshot(cwd, { maxStatusLines: 5 });
    expect(snapshot.repository && snapshot.status.length).toBe(5);
    expect(renderGitSnapshot(snapshot)).toContain("… and 7 more lines");
    expect(snapshot.repository && snapshot.recentCommits.length).toBe(5);
  });

  it("reads the branch and the status from one `git status --branch`, three git runs in all", async () => {
    const cwd = gitRepo();
    writeFileSync(join(cwd, "f1.txt"), "changed");
    writeFileSync(join(cwd, "new.txt"), "x");
    const calls = join(tmp(), "calls");
    const gitPath = join(tmp(), "git");
    writeFileSync(gitPath, `#!/bin/sh\necho "$*" >> '${calls}'\nexec git "$@"\n`);
    chmodSync(gitPath, 0o755);
    const snapshot = await takeGitSnapshot(cwd, { gitPath });
    expect(snapshot).toMatchObject({
      repository: true,
      branch: "trunk",
      status: [" M f1.txt", "?? new.txt"],
    });
    const runs = readFileSync(calls, "utf8").trim().split("\n");
    expect(runs).toHaveLength(3);
    expect(runs.filter((run) => / status /.test(run))).toHaveLength(1);
    expect(runs.join("\n")).not.toMatch(/rev-parse|branch --show-current|--version/);
  });

  it("names a detached HEAD by its commit, and an unborn branch by its name", async () => {
    const cwd = gitRepo();
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD~1"], { cwd, encoding: "utf8" }).trim();
    execFileSync("git", ["checkout", "-q", "--detach", "HEAD~1"], { cwd });
    expect(await takeGitSnapshot(cwd)).toMatchObject({ branch: `(detached HEAD at ${head})` });
    const fresh = tmp();
    execFileSync("git", ["init", "-q", "-b", "first"], { cwd: fresh });
    writeFileSync(join(fresh, "a.txt"), "a");
    const unborn = await takeGitSnapshot(fresh);
    expect(unborn).toMatchObject({
      repository: true,
      branch: "first",
      status: ["?? a.txt"],
      recentCommits: [],
    });
    expect(renderGitSnapshot(unborn)).toContain("(no commits yet)");
  });

  it("says so when git status does not answer in time, rather than calling the repository clean or no repository", async () => {
    const cwd = gitRepo();
    const gitPath = join(tmp(), "git");
    writeFileSync(gitPath, `#!/bin/sh\ncase "$*" in *" status "*) exec sleep 10;; esac\nexec git "$@"\n`);
    chmodSync(gitPath, 0o755);
    const snapshot = await takeGitSnapshot(cwd, { gitPath, timeoutMs: 1500 });
    expect(snapshot).toMatchObject({
      repository: true,
      status: ["(git status did not answer within 1.5 s)"],
    });
    expect(snapshot.repository && snapshot.recentCommits).toHaveLength(5);
  });

  it("reports a missing git binary instead of failing", async () => {
    const snapshot = await takeGitSnapshot(tmp(), { gitPath: "/nonexistent/git" });
    expect(snapshot).toEqual({ repository: false, reason: "git is not available" });
  });
});

describe("memory folder", () => {
  it("derives the slug from the absolute working folder: readable, plus a hash of the exact path", () => {
    expect(projectSlug("/nonexistent/b.c_d")).toMatch(/^-nonexistent-b-c-d-[0-9a-f]{12}$/);
    expect(projectSlug("/nonexistent/b.c_d")).toBe(projectSlug("/nonexistent/x/../b.c_d"));
    expect(memoryDir({ cwd: "/nonexistent/main", home: "/home/u" })).toBe(
      `/home/u/.mitsu/projects/${projectSlug("/nonexistent/main")}/memory`,
    );
  });

  it("formats the local date", () => {
    expect(localDate(new Date(2024, 0, 9, 23, 59))).toBe("2024-01-09");
  });
});
