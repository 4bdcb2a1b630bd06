import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/loop/tool.js";
import { createPermissionChecker, type PermissionCheckerOptions } from "../../src/permissions/index.js";

// Issue 10, part 1: Bash allow and deny rules are checked against what bash really runs.

let project: string;
beforeEach(async () => {
  project = join(await realpath(await mkdtemp(join(tmpdir(), "mitsu-bash-rules-"))), "p");
  await mkdir(project, { recursive: true });
});
afterEach(() => rm(join(project, ".."), { recursive: true, force: true }));

const Bash = {
  name: "Bash",
  description: "",
  inputSchema: {},
  permissionFacts: (input: { command: string }) => ({ command: input.command }),
  run: async () => "",
} as unknown as Tool<never>;
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };
const checker = (options: Partial<PermissionCheckerOptions>) =>
  createPermissionChecker({ mode: "default", cwd: project, home: join(project, "..", "home"), ...options });
const run = (check: ReturnType<typeof checker>, command: string) => check(Bash, { command }, ctx);

describe("an allow rule does not run what follows a comment or a heredoc", () => {
  const allowed = () => checker({ rules: { allow: ["Bash(git status:*)"] } });
  it.each([
    ["a comment, then a newline", "git status #\nrm x"],
    ["a semicolon and a comment", "git status; #\nrm x"],
    ["a comment ending in a backslash (bash does not continue a comment)", "git status # \\\nrm x"],
    ["a heredoc with an odd delimiter", "git status <<'E O'\nfoo\nE O\nrm x"],
    ["a heredoc whose delimiter is quoted in parts", 'git status <<E"O"F\nEOF\nrm x\nE'],
    ["ANSI-C quoting of a quote", "git status $'\\''\nrm x"],
    ["a backslash before the closing single quote", "git status 'a\\'; rm x"],
    ["backquotes", "git status `rm x`"],
    ["a command substitution in a heredoc body", "git status <<EOF\n$(rm x)\nEOF"],
    ["a process substitution", "git status <(rm x)"],
    ["a function body", "f() { rm x; }; git status"],
  ])("%s", async (_, command) => {
    expect(await run(allowed(), command), command).toMatchObject({ behavior: "deny" });
  });

  it("still allows what the rule allows, with comments and heredocs as data", async () => {
    const check = allowed();
    for (const command of [
      "git status",
      "git status # rm x",
      "git status <<EOF\nrm x\nEOF",
      "git status --short 2>&1",
      "git status >/dev/null",
      "git status $'a\\' ; rm x'",
    ]) {
      expect(await run(check, command), command).toEqual({ behavior: "allow" });
    }
  });

  it("never allows what the parse cannot account for, and says so", async () => {
    const check = checker({ rules: { allow: ["Bash(echo:*)", "Bash(git status:*)", "Bash(ls:*)"] } });
    for (const command of [
      "$CMD status",
      "$(echo git) status",
      "eval 'git status'",
      ". ./script.sh",
      "source ./script.sh",
      "PATH=/tmp/evil; git status",
      "export PATH=/tmp/evil; git status",
      "x='a[$(rm -rf ~)]'; echo $((x))",
      "x='a[$(rm -rf ~)]'; [[ $x -eq 1 ]]",
      "g*t status",
      "{git,rm} status",
      "echo (",
    ]) {
      const decision = await run(check, command);
      expect(decision, command).toMatchObject({
        behavior: "deny",
        message: expect.stringContaining("rules cannot be checked against"),
      });
    }
  });
});

describe("a deny rule matches the command wherever it really runs", () => {
  const denied = (mode: PermissionCheckerOptions["mode"] = "bypassPermissions") =>
    checker({ mode, rules: { allow: ["Bash"], deny: ["Bash(rm:*)"] } });
  it.each([
    "ls #\nrm x",
    "ls # \\\nrm x",
    "env rm x",
    "env -i FOO=1 rm x",
    "env -S 'rm x'",
    "builtin eval 'rm x'",
    "command rm x",
    "exec rm x",
    "nice -n 5 rm x",
    "timeout 10 rm x",
    "nohup rm x &",
    "sudo -u root rm x",
    "ls | xargs rm",
    "ls | xargs -0 -n 1 rm -f",
    "find . -name '*.o' -exec rm {} \\;",
    "sh -c 'rm x'",
    "bash -lc 'cd /; rm -rf x'",
    "eval 'rm x'",
    'eval "$(echo x)"; eval rm x',
    "/bin/rm x",
    "\\rm x",
    "'r'm x",
    '"rm" x',
    "$'\\x72m' x",
    "x=$(rm y)",
    "trap 'rm x' EXIT",
    "echo (; rm x",
  ])("%s", async (command) => {
    expect(await run(denied(), command), command).toMatchObject({ behavior: "deny" });
  });

  it("does not deny a line that only mentions the word", async () => {
    const check = denied();
    for (const command of ["echo rm x", "grep -r 'rm -rf' .", "cat <<EOF\nrm x\nEOF", "ls # rm x"]) {
      expect(await run(check, command), command).toEqual({ behavior: "allow" });
    }
  });

  it("lets an allow rule for the inner command hold through wrappers that only change how it runs", async () => {
    const check = checker({ rules: { allow: ["Bash(npm test:*)"] } });
    expect(await run(check, "timeout 300 npm test")).toEqual({ behavior: "allow" });
    expect(await run(check, "nice -n 5 npm test -- --watch=false")).toEqual({ behavior: "allow" });
    expect(await run(check, "env PATH=/tmp/evil npm test")).toMatchObject({ behavior: "deny" });
    expect(await run(check, "sudo npm test")).toMatchObject({ behavior: "deny" });
    expect(await run(check, "sh -c 'npm test'")).toMatchObject({ behavior: "deny" });
  });
});

describe("redirections to files need the Write permission for their target", () => {
  it("asks for `git status > f` although git status is allowed", async () => {
    const check = checker({ rules: { allow: ["Bash(git status:*)"] } });
    expect(await run(check, "git status > logs/out.txt")).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining('To allow it, add "Edit(./logs/**)" to permissions.allow'),
    });
    expect(await run(check, "git status &>> log")).toMatchObject({ behavior: "deny" });
    expect(await run(check, "git status >& log")).toMatchObject({ behavior: "deny" });
    expect(await run(check, "git status > $OUT")).toMatchObject({ behavior: "deny" });
  });

  it("allows it where a Write would be allowed: an Edit rule, or acceptEdits inside the workspace", async () => {
    expect(
      await run(
        checker({ rules: { allow: ["Bash(git status:*)", "Edit(./logs/**)"] } }),
        "git status > logs/s",
      ),
    ).toEqual({ behavior: "allow" });
    const accept = checker({ mode: "acceptEdits", rules: { allow: ["Bash(git status:*)"] } });
    expect(await run(accept, "git status > out.txt")).toEqual({ behavior: "allow" });
    expect(await run(accept, "git status > /etc/elsewhere")).toMatchObject({ behavior: "deny" });
    expect(await run(accept, "git status > .git/config")).toMatchObject({ behavior: "deny" });
  });

  it("applies Read deny rules to input redirections", async () => {
    const check = checker({ mode: "bypassPermissions", rules: { deny: ["Read(./secrets/**)"] } });
    expect(await run(check, "wc -l < secrets/key")).toMatchObject({ behavior: "deny" });
    expect(await run(check, "wc -l < src/a.ts")).toEqual({ behavior: "allow" });
  });

  it("applies Edit deny rules to redirection targets", async () => {
    const check = checker({ mode: "bypassPermissions", rules: { deny: ["Edit(./secrets/**)"] } });
    expect(await run(check, "echo x > secrets/key")).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining('"Edit(./secrets/**)"'),
    });
  });
});
