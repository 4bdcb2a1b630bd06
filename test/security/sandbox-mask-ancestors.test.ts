import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolState } from "../../src/loop/tool-state.js";
import { createBashTool } from "../../src/tools/bash-tool.js";

// Issue 21 item 2, attacked again. A read-only mount cannot be renamed, but the folder above it can, and the
// mount moves with it: a sandboxed command renamed the home folder (inside the workspace) away and made a new one
// with its own `.profile`, or `~/.config` away to make `~/.config/git/config` with a core.fsmonitor. And only the
// top `.git` was masked: a submodule's `.git` was replaced by a folder with a core.fsmonitor, which the user's
// next `git status` at the top ran (git looks into each populated submodule). Needs bubblewrap.

let base: string;
let work: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-mask-up-")));
  work = join(base, "work");
  await mkdir(work);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(command: string, home = join(base, "home")): Promise<string> {
  const tool = createBashTool({
    cwd: work,
    outputDir: join(base, "out"),
    env: { PATH: process.env.PATH, HOME: home },
    sandbox: { writableRoots: [work], allowNetwork: false },
  });
  try {
    const out = await tool.run(
      { command },
      { signal: new AbortController().signal, toolUseId: "t", state: new ToolState(), agentPath: [] },
    );
    return typeof out === "string" ? out : String((out as { content: unknown }).content);
  } catch (error) {
    return (error as Error).message;
  }
}

const gitEnv = () => ({
  PATH: process.env.PATH,
  HOME: join(base, "home"),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
});
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, env: gitEnv(), stdio: "pipe" });

describe("a masked path's folders cannot be renamed away", () => {
  it("the home folder inside the workspace cannot be swapped for one with a new .profile", async () => {
    const home = join(work, "me");
    await mkdir(home);
    await writeFile(join(home, ".profile"), "# mine\n");
    await sandboxed(
      'mv "$HOME" "$HOME.old"; mkdir "$HOME" && echo "touch pwned" > "$HOME/.profile"; echo rc=$?',
      home,
    );
    expect(readFileSync(join(home, ".profile"), "utf8")).toBe("# mine\n");
    expect(existsSync(`${home}.old`)).toBe(false);
  });

  it("nor ~/.config for one with a git config", async () => {
    const home = join(work, "me");
    await mkdir(join(home, ".config"), { recursive: true });
    await sandboxed(
      'c="$HOME/.conf"; c="$c"ig; mv "$c" "$c.old"; mkdir -p "$c/git" && printf "[core]\\n\\tfsmonitor = x\\n" > "$c/git/config"; echo rc=$?',
      home,
    );
    expect(existsSync(join(home, ".config", "git", "config"))).toBe(false);
    expect(existsSync(join(home, ".config.old"))).toBe(false);
  });
});

describe("the home folder as the workspace (mitsu started in ~)", () => {
  it("what runs at the next shell, login or command stays read-only: .bash_aliases, systemd user units, autostart, ~/.local/bin", async () => {
    await writeFile(join(work, ".bash_aliases"), "# mine\n");
    const out = await sandboxed(
      [
        'echo "touch pwned" >> .bash_aliases',
        "mkdir -p .config/systemd/user && echo '[Service]' > .config/systemd/user/x.service",
        "mkdir -p .config/autostart && echo '[Desktop Entry]' > .config/autostart/x.desktop",
        "mkdir -p .config/environment.d && echo 'LD_PRELOAD=/x.so' > .config/environment.d/x.conf",
        "mkdir -p .local/bin && printf '#!/bin/sh\\ntouch pwned\\n' > .local/bin/git",
        "echo done",
      ].join("; "),
      work,
    );
    expect(out).toContain("done");
    expect(readFileSync(join(work, ".bash_aliases"), "utf8")).toBe("# mine\n");
    for (const planted of [
      ".config/systemd/user/x.service",
      ".config/autostart/x.desktop",
      ".config/environment.d/x.conf",
      ".local/bin/git",
    ])
      expect(existsSync(join(work, planted))).toBe(false);
  });
});

describe("a submodule's .git", () => {
  it("cannot be replaced by a folder whose core.fsmonitor the user's next git status runs", async () => {
    const lib = join(base, "lib");
    await mkdir(lib);
    git(lib, "init", "-q");
    await writeFile(join(lib, "a.txt"), "a\n");
    git(lib, "add", "a.txt");
    git(lib, "commit", "-qm", "a");
    git(work, "init", "-q");
    git(work, "submodule", "add", "-q", lib, "sub");
    git(work, "commit", "-qm", "sub");
    // Spelled without a literal `.git`, as a command avoiding the checker's names would.
    const out = await sandboxed(
      [
        'g=.gi; g="$g"t',
        'rm sub/"$g" && mkdir sub/"$g" && cp -r "$g"/modules/sub/. sub/"$g"/',
        'git config -f sub/"$g"/config --unset core.worktree',
        `printf '[core]\\n\\tfsmonitor = "touch ${base}/pwned; false"\\n' >> sub/"$g"/config`,
        "echo rc=$?",
      ].join("; "),
    );
    try {
      execFileSync("git", ["status", "--short"], { cwd: work, env: gitEnv(), stdio: "ignore" });
    } catch {
      // A broken submodule fails the status: what matters is whether the planted command ran.
    }
    expect(existsSync(join(base, "pwned"))).toBe(false);
    expect(out).not.toContain("rc=0");
    // The submodule's own files stay writable.
    expect(await sandboxed("echo b >> sub/a.txt && echo written")).toContain("written");
    expect(readFileSync(join(work, "sub", "a.txt"), "utf8")).toBe("a\nb\n");
  });
});
