// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell lines with ${…} in them, as the model writes them
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPermissionChecker } from "../../src/permissions/index.js";
import type { PermissionMode } from "../../src/permissions/permission-mode.js";
import type { Simulator } from "../../src/simulator/index.js";
import { createBashTool } from "../../src/tools/bash-tool.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";

// Round 4 of issue 21: the protected names (.git, .mitsu, .claude, .mcp.json, the shell's start-up files) were
// only found when written as literals. A line that builds the name at run time — a variable, `printf -v`, a
// substitution, a `cd` before a relative redirection, a brace expansion or a dot glob, a script fed to a shell —
// ran unasked under an allow rule for its commands (`Bash(echo:*)`, `Bash(cp:*)`), in acceptEdits.

let cwd: string;
let home: string;
beforeEach(async () => {
  cwd = await realpath(await mkdtemp(join(tmpdir(), "mitsu-built-names-")));
  home = join(cwd, "home");
  await mkdir(join(cwd, ".git", "hooks"), { recursive: true });
  await mkdir(join(cwd, ".mitsu"), { recursive: true });
  await mkdir(home, { recursive: true });
});
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  await rm(cwd, { recursive: true, force: true });
});

const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };
const RULES = [
  "Bash(echo:*)",
  "Bash(cp:*)",
  "Bash(cd:*)",
  "Bash(printf:*)",
  "Bash(cat:*)",
  "Bash(bash:*)",
  "Bash(tee:*)",
  "Bash(shopt:*)",
  "Bash(git commit:*)",
  "Bash(find:*)",
  "Bash(xargs:*)",
  "Bash(tar:*)",
  "Bash(unzip:*)",
  "Bash(rsync:*)",
  "Bash(7z:*)",
  "Bash(git:*)",
  "Bash(patch:*)",
  "Bash(ln:*)",
  "Bash(mv:*)",
  "Bash(cpio:*)",
];

function checker(mode: PermissionMode = "acceptEdits", sandboxAutoAllow = false) {
  const bash = createBashTool({ cwd, outputDir: join(cwd, "out"), env: {} });
  const check = createPermissionChecker({ mode, cwd, home, allowedTools: RULES, sandboxAutoAllow });
  return (command: string) => check(bash as never, { command }, ctx);
}

const ATTACKS = [
  "d=.gi; echo x > ${d}t/hooks/pre-commit",
  "d=.gi; cp evil ${d}t/hooks/pre-commit",
  "f=settings.local.json; cp evil .mitsu/$f",
  "d=.mi; cp evil ${d}tsu/settings.local.json",
  "cd .git && echo x > hooks/pre-commit",
  "cd .gi''t && echo x > hooks/pre-commit",
  "d=.gi; cd ${d}t && echo x > hooks/pre-commit",
  "cd $(printf '\\x2egit') && echo x > hooks/pre-commit",
  "printf -v p '\\x2egit'; cp evil $p/hooks/pre-commit",
  "printf -v p '\\x2egit'; echo x > $p/hooks/pre-commit",
  "cp evil ${HOME}/.bashrc",
  "echo x >> ${HOME}/.bashrc",
  "cp evil ~/.bashrc",
  "echo x | tee -a ~/.profile",
  "cp evil .{git,x}/hooks/pre-commit",
  "cp evil {.git,x}/hooks/pre-commit",
  "cp evil .gi?/hooks/pre-commit",
  "shopt -s dotglob; cp evil */hooks/pre-commit",
  'eval "echo x > .gi""t/hooks/pre-commit"',
  "bash -c 'd=.gi; echo x > ${d}t/hooks/pre-commit'",
  "bash <<< 'd=.gi; echo x > ${d}t/hooks/pre-commit'",
  "printf 'echo x > \\x2egit/hooks/pre-commit' | bash",
  "cat <<< x > $(printf '\\x2egit')/hooks/pre-commit",
  "find . -name pre-commit.sample -exec cp evil {} \\;",
  "printf '\\x2egit/hooks/pre-commit' | xargs cp evil",
  // A tree written whole into a folder that holds .git (review b): the archive or the copied folder names
  // `.git/hooks/pre-commit` itself, where the line cannot show it.
  "tar -xf evil.tar",
  "tar xzf evil.tgz -C .",
  "tar --extract --file=evil.tar --directory=..",
  "unzip -o evil.zip",
  "unzip evil.zip -d ./",
  "7z x evil.7z",
  "cp -a evil/. .",
  "cp -rT evil .",
  "cp -r evil/. ~",
  "rsync -a evil/ ./",
  "cd src && tar -xf ../evil.tar -C ..",
  "cp evil .GIT/hooks/pre-commit",
  "echo x > .Mitsu/settings.local.json",
  // .git/config written by git itself: core.fsmonitor runs at the next `git status` (review b).
  "git config core.fsmonitor 'sh evil.sh'",
  "git config --global core.hooksPath /tmp/hooks",
  "git -C . config --add alias.st '!sh evil.sh'",
  "git config set core.pager 'sh evil.sh'",
  "env git config core.fsmonitor x",
  "git init --template=evil",
  "git -c init.templateDir=evil init",
  "git apply --unsafe-paths evil.patch",
  "patch -p1 < evil.patch",
  "patch -d .. -p0 -i evil.patch",
  // A link made in the line, written through (review b); a copy into a folder under the source's own name.
  "ln -s ~ h && cp evil h/.bashrc",
  "ln -s ~ h; echo x >> h/.bashrc",
  "ln -s ~/.ssh k && cp evil k/authorized_keys",
  "ln -s .. up && cp evil up/project/.git/hooks/pre-commit",
  "cp -rs ~ h",
  "cp .bashrc ~",
  "cp -t ~ .profile",
  "mv evil/.zshrc ~/",
  // Archives whose members keep absolute names or `..` (review b): -C names no place they are bound to.
  "tar -xPf evil.tar -C vendor",
  "tar --absolute-names -xf evil.tar -C vendor",
  "unzip -: evil.zip -d vendor",
  "cpio -idm -D vendor < evil.cpio",
];

describe("protected names built at run time", () => {
  it.each(ATTACKS)("%s is asked under allow rules in acceptEdits", async (command) => {
    const decision = await checker()(command);
    // Without a terminal a question is a refusal: the call did not run unasked.
    expect(decision.behavior).toBe("deny");
  });

  it.each(ATTACKS)("%s is asked under the sandbox's auto-allow", async (command) => {
    expect((await checker("default", true)(command)).behavior).toBe("deny");
  });

  it("ordinary lines under the same rules still run unasked", async () => {
    for (const command of [
      "echo hello > out.txt",
      "cp a.txt b.txt && cp .gitignore .gitignore.bak",
      "cd src && echo x > notes.txt",
      "cd src; cat a.ts",
      "cp src/*.ts dist/",
      "cp a.txt {b,c}.txt",
      "echo $((1 + 2))",
      "find . -name '*.ts' | xargs wc -l",
      "printf '%s\\n' done",
      "tar -xf vendor.tar -C vendor",
      "tar -czf out.tgz src",
      "unzip -d fixtures/unpacked fixtures.zip",
      "cp -r src/components backup",
      "cp -a assets/. dist/",
      "rsync -a src/ build/",
      "patch -d vendor/lib -p1 -i fix.patch",
      "ln -s ../shared/config.json config.json",
      "ln -sf dist/cli.js bin/mitsu",
      "cp src/a.ts dist/",
      "mv build/out.js dist/",
      "git init scratch",
      "git config user.name",
      "git config --get core.hooksPath",
      "git config --list --show-origin",
      "git -c color.ui=never log --oneline",
      "echo \"$(cat <<'EOF'\nline\nEOF\n)\"",
      "git commit -m \"$(cat <<'EOF'\nFix the parser\n\nCo-Authored-By: x\nEOF\n)\"",
    ]) {
      expect((await checker()(command)).behavior, command).toBe("allow");
    }
  });
});

describe("reading lines in default mode, no rules (review b: asked needlessly before)", () => {
  it("a cd into the workspace, a grep pattern with $, git branch -a and git remote -v run unasked", async () => {
    await mkdir(join(cwd, "src"), { recursive: true });
    for (const command of [
      "cd src && ls",
      "cd src && grep -rn foo .",
      "cd src; wc -l a.ts",
      "git ls-files | grep '\\.ts$' | wc -l",
      "grep -rn 'TODO$' src",
      "git branch -a",
      "git remote -v",
    ]) {
      expect((await checker("default")(command)).behavior, command).toBe("allow");
    }
  });

  it("a cd out of the workspace, and a pattern known only at run time are still asked", async () => {
    await mkdir(join(cwd, "src"), { recursive: true });
    await symlink(tmpdir(), join(cwd, "out-link"));
    for (const command of [
      "cd / && ls",
      "cd .. && ls",
      "cd .. && wc -l x",
      "cd src && wc -l ../../x",
      "cd out-link && ls",
      "cd src && cd ../.. && ls",
      "grep $x src",
      'grep -r "$(id)" .',
    ]) {
      expect((await checker("default")(command)).behavior, command).toBe("deny");
    }
  });
});

describe("a read from a file named only at run time", () => {
  it.each(["cat < ${HOME}/.ssh/id_rsa", "f=~/.ssh/id_rsa; wc -c < $f"])(
    "%s is not read unasked as a read-only line",
    async (command) => {
      expect((await checker("default")(command)).behavior).toBe("deny");
    },
  );

  it("a literal input inside the workspace still is", async () => {
    expect((await checker("default")("wc -l < notes.txt")).behavior).toBe("allow");
  });
});

describe("through mitsu -p", () => {
  it("a hook written through a cd to a built name is not written; the model is told why it needs asking", async () => {
    const command = "d=.gi; cd ${d}t && echo pwned > hooks/pre-commit";
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command } }] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    sim = s.sim;
    const workspace = tempWorkspace({ empty: true });
    await mkdir(join(workspace.cwd, ".git", "hooks"), { recursive: true });
    const out = await runMitsu(
      ["-p", "go", "--permission-mode", "acceptEdits", "--allowedTools", "Bash(echo:*),Bash(cd:*)"],
      { cwd: workspace.cwd, home: workspace.home, env: s.env },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(join(workspace.cwd, ".git", "hooks", "pre-commit"))).toBe(false);
    const result = JSON.stringify(sim.requests[1]?.body.messages.at(-1).content);
    expect(result).toContain("was denied: mitsu is running without a terminal to ask");
    expect(result).toContain("a cd to a folder known only when the line runs");
  });
});
