import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionFacts, Tool } from "../loop/tool.js";
import type { LoadedRules } from "./load-settings.js";
import {
  createPermissionChecker,
  type PermissionCheckerOptions,
  type PermissionRequest,
} from "./permission-checker.js";
import { parsePermissionRule } from "./permission-rule.js";

let base: string;
let project: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-perm-")));
  project = join(base, "project");
  await mkdir(join(project, "secrets"), { recursive: true });
});
afterEach(() => rm(base, { recursive: true, force: true }));

type Input = Record<string, string>;
const tool = (name: string, readOnly = false, permissionFacts?: (input: Input) => PermissionFacts) =>
  ({
    name,
    description: "",
    inputSchema: {},
    readOnly,
    permissionFacts,
    run: async () => "",
  }) as unknown as Tool<never>;
// The facts the built-in tools state (create-builtin-tools.test.ts checks the real ones say the same).
const file = (access: "read" | "write") => (input: Input) => ({
  paths: [{ path: input.file_path!, access }],
});
const search = (input: Input) => ({
  paths: [{ path: input.path ?? ".", access: "read" as const, folder: true }],
  display: input.pattern!,
});
const TOOLS = {
  Read: tool("Read", true, file("read")),
  Grep: tool("Grep", true, search),
  Glob: tool("Glob", true, search),
  Write: tool("Write", false, file("write")),
  Edit: tool("Edit", false, file("write")),
  Bash: tool("Bash", false, (input) => ({ command: input.command! })),
  Skill: tool("Skill", true, (input) => ({ display: input.skill! })),
  Task: tool("Task"),
  mcp: tool("mcp__github__create_issue"),
};
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };

function rules(spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {}): LoadedRules {
  const origin = {
    source: join(project, ".mitsu", "settings.json"),
    root: project,
    home: join(base, "home"),
  };
  const parse = (list: string[] = []) => list.map((text) => parsePermissionRule(text, origin));
  return { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) };
}

function checker(extra: Partial<PermissionCheckerOptions> = {}) {
  return createPermissionChecker({ rules: rules(), mode: "default", cwd: project, ...extra });
}

const bash = (command: string) => [TOOLS.Bash, { command }] as const;

describe("defaults", () => {
  it("allow Read, Grep, Glob, Skill and Task (a sub-agent's calls are checked one by one); ask (so, without a terminal, deny) Write, Edit, Bash and MCP", async () => {
    const check = checker();
    for (const name of ["Read", "Grep", "Glob", "Skill", "Task"] as const) {
      expect(await check(TOOLS[name], { file_path: "a.ts", pattern: "x" }, ctx)).toEqual({
        behavior: "allow",
      });
    }
    for (const name of ["Write", "Edit", "Bash", "mcp"] as const) {
      expect(await check(TOOLS[name], { file_path: "a.ts", command: "npm test" }, ctx)).toMatchObject({
        behavior: "deny",
      });
    }
  });
});

describe("read-only commands inside the workspace run without asking (as in Claude Code)", () => {
  it("allows ls, pwd, cat, head, wc, grep, find and git status/log/diff in the default mode", async () => {
    const check = checker();
    for (const command of [
      "ls",
      "pwd",
      "cat README.md",
      "head -n 5 src/a.ts",
      "wc -l src/*.ts",
      "grep -rn TODO src",
      "find . -name '*.ts'",
      "git status",
      "git log --oneline -5",
      "git diff HEAD~1 -- src",
      "ls src 2>/dev/null | sort | uniq -c",
      "LC_ALL=C sort README.md",
    ]) {
      expect(await check(...bash(command), ctx), command).toEqual({ behavior: "allow" });
    }
  });

  it("asks for what writes, runs more, reads outside the workspace, is not known before it runs, or a rule names", async () => {
    await mkdir(join(base, "home", ".ssh"), { recursive: true });
    await symlink(join(base, "home", ".ssh"), join(project, "keys"));
    const check = checker({
      home: join(base, "home"),
      rules: rules({ deny: ["Read(./secrets/**)"], ask: ["Bash(wc:*)"] }),
    });
    for (const command of [
      "cat ~/.ssh/id_rsa",
      "cat /etc/passwd",
      "cat ../outside.txt",
      "cat keys/id_rsa",
      "grep -r x keys",

      "find / -name id_rsa",
      "wc -l < /etc/passwd",
      "ls > listing.txt",
      "cat $(echo README.md)",
      "cat $HOME/.bashrc",
      "cat {/etc/passwd,README.md}",
      "cat .*/x",
      "cat ~root/.profile",
      "grep -f/etc/passwd README.md",
      "find . -delete",
      "git -c core.pager=x log",
      "GIT_CONFIG_COUNT=1 git status",
      "cat secrets/key",
      "grep -r x .",
      "wc -l README.md",
      "npm test",
    ]) {
      expect(await check(...bash(command), ctx), command).toMatchObject({ behavior: "deny" });
    }
    // A search that follows links could leave the workspace through one: asked, without any rule.
    const plain = checker();
    expect(await plain(...bash("grep -r secret src"), ctx)).toEqual({ behavior: "allow" });
    for (const command of [
      "grep -R secret src",
      "rg -L secret src",
      "find -L src -name id_rsa",
      "du -L src",
    ]) {
      expect(await plain(...bash(command), ctx), command).toMatchObject({ behavior: "deny" });
    }
    // The same lines with --add-dir: the other folder is the workspace too.
    const other = join(base, "other");
    await mkdir(other);
    expect(await checker({ additionalDirectories: [other] })(...bash(`cat ${other}/x.txt`), ctx)).toEqual({
      behavior: "allow",
    });
    // A deny rule still wins.
    expect(
      await checker({ rules: rules({ deny: ["Bash(cat:*)"] }) })(...bash("cat README.md"), ctx),
    ).toMatchObject({ behavior: "deny", message: expect.stringContaining("Bash(cat:*)") });
  });

  it("asks for git when the repository's configuration names a program git would run", async () => {
    await mkdir(join(project, ".git"), { recursive: true });
    const { writeFile } = await import("node:fs/promises");
    await writeFile(join(project, ".git", "config"), "[core]\n\tbare = false\n");
    expect(await checker()(...bash("git status"), ctx)).toEqual({ behavior: "allow" });
    await writeFile(join(project, ".git", "config"), "[core]\n\tfsmonitor = ./evil.sh\n");
    expect(await checker()(...bash("git status"), ctx)).toMatchObject({ behavior: "deny" });
    expect(await checker()(...bash("ls"), ctx)).toEqual({ behavior: "allow" });
  });
});

describe("print mode (no terminal to ask)", () => {
  it("denies with a message for the model that tells the user how to allow it", async () => {
    expect(await checker()(...bash("rm -rf build"), ctx)).toEqual({
      behavior: "deny",
      message:
        'Permission to use Bash(rm -rf build) was denied: mitsu is running without a terminal to ask. To allow it, add "Bash(rm:*)" to permissions.allow in .mitsu/settings.json or pass --allowedTools "Bash(rm:*)"',
    });
  });

  it("suggests one rule per command not yet allowed, and folder rules for edits", async () => {
    const check = checker({ allowedTools: ["Bash(npm test:*)"] });
    const decision = await check(...bash("npm test && git push origin main | npm run test:unit"), ctx);
    expect(decision).toMatchObject({
      message: expect.stringContaining(
        'add "Bash(git push:*)" and "Bash(npm run test:unit:*)" to permissions.allow',
      ),
    });
    expect(await check(TOOLS.Write, { file_path: "src/new.ts", content: "" }, ctx)).toMatchObject({
      message: expect.stringContaining('add "Edit(./src/**)"'),
    });
  });

  it("says when an ask rule is what requires asking, and when a command cannot be checked", async () => {
    const check = checker({ rules: rules({ allow: ["Bash"], ask: ["Bash(git push:*)"] }) });
    expect(await check(...bash("git push"), ctx)).toMatchObject({
      message: expect.stringContaining(
        `The rule "Bash(git push:*)" in permissions.ask of ${project}/.mitsu/settings.json requires asking`,
      ),
    });
    expect(await checker({ allowedTools: ["Bash(echo:*)"] })(...bash('eval "echo x"'), ctx)).toMatchObject({
      message: expect.stringContaining("shell features that rules cannot be checked against"),
    });
  });
});

describe("Bash rules against compound commands", () => {
  it("allow only when every command is allowed", async () => {
    const check = checker({ rules: rules({ allow: ["Bash(npm test:*)"] }) });
    expect(await check(...bash("npm test"), ctx)).toEqual({ behavior: "allow" });
    expect(await check(...bash("npm test -- --watch=false"), ctx)).toEqual({ behavior: "allow" });
    expect(await check(...bash("npm test && rm -rf /"), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(...bash("npm test; rm -rf /"), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(...bash("npm test | sh"), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(...bash("npm test\nrm -rf /"), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(...bash("npm test $(rm -rf /)"), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(...bash("(npm test) && (rm -rf /)"), ctx)).toMatchObject({ behavior: "deny" });
  });

  it("deny when any command is denied, even if the tool is allowed", async () => {
    const check = checker({ rules: rules({ allow: ["Bash"], deny: ["Bash(rm:*)"] }) });
    expect(await check(...bash("ls"), ctx)).toEqual({ behavior: "allow" });
    const denied = await check(...bash("ls && (cd x; rm -rf y)"), ctx);
    expect(denied).toEqual({
      behavior: "deny",
      message: `Permission to use Bash(ls && (cd x; rm -rf y)) was denied by the rule "Bash(rm:*)" in permissions.deny of ${project}/.mitsu/settings.json.`,
    });
  });
});

describe("deny rules cannot be slipped past", () => {
  it("a Bash deny rule holds inside braces, if/while bodies, after ! and time, and after variable assignments", async () => {
    const check = checker({ mode: "bypassPermissions", rules: rules({ deny: ["Bash(rm:*)"] }) });
    for (const line of [
      "{ rm -rf x; }",
      "if true; then rm -rf x; fi",
      "if false; then :; else rm -rf x; fi",
      "while true; do rm -rf x; done",
      "! rm -rf x",
      "time rm -rf x",
      "FOO=1 rm -rf x",
      "A=1 B=2 rm -rf x",
    ]) {
      expect(await check(...bash(line), ctx), line).toMatchObject({ behavior: "deny" });
    }
    expect(await check(...bash("echo FOO=1 rm"), ctx)).toEqual({ behavior: "allow" });
  });

  it("an allow rule does not hold for a command run with a variable assignment in front", async () => {
    const check = checker({ rules: rules({ allow: ["Bash(npm test:*)"] }) });
    expect(await check(...bash("{ npm test; }"), ctx)).toEqual({ behavior: "allow" });
    expect(await check(...bash("PATH=/tmp/evil npm test"), ctx)).toMatchObject({ behavior: "deny" });
  });

  it("a file deny rule covers names that start with two dots", async () => {
    const check = checker({ rules: rules({ deny: ["Read(./**/*.key)", "Edit(./secrets/**)"] }) });
    expect(await check(TOOLS.Read, { file_path: "..private.key" }, ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(TOOLS.Read, { file_path: "secrets/..x.key" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(TOOLS.Write, { file_path: "secrets/..env" }, ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("Edit(./secrets/**)"),
    });
    expect(await check(TOOLS.Read, { file_path: "../outside.key" }, ctx)).toEqual({ behavior: "allow" });
  });
});

describe("precedence", () => {
  it("deny wins over ask, and ask over allow", async () => {
    const asked: PermissionRequest[] = [];
    const ask = async (request: PermissionRequest) => {
      asked.push(request);
      return "allow_once" as const;
    };
    const both = checker({
      rules: rules({ allow: ["Bash(git:*)"], ask: ["Bash(git:*)"], deny: ["Bash(git push:*)"] }),
      ask,
    });
    expect(await both(...bash("git push"), ctx)).toMatchObject({ behavior: "deny" });
    expect(asked).toHaveLength(0);
    expect(await both(...bash("git status"), ctx)).toEqual({ behavior: "allow" });
    expect(asked.map((request) => request.reason)).toEqual([
      `the rule "Bash(git:*)" in permissions.ask of ${project}/.mitsu/settings.json requires asking`,
    ]);
  });

  it("treats --allowedTools and --disallowedTools as allow and deny rules", async () => {
    const check = checker({ allowedTools: ["Edit", "mcp__github"], disallowedTools: ["Edit(./secrets/**)"] });
    expect(await check(TOOLS.Write, { file_path: "src/a.ts" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.mcp, {}, ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.Edit, { file_path: "secrets/key" }, ctx)).toEqual({
      behavior: "deny",
      message:
        'Permission to use Edit(secrets/key) was denied by the rule "Edit(./secrets/**)" given with --disallowedTools.',
    });
    expect(() => checker({ allowedTools: ["Bash("] })).toThrow(/--allowedTools\[0\]/);
  });
});

describe("file rules", () => {
  it("deny Read, Grep and Glob of a denied folder, also through a symbolic link", async () => {
    await symlink(join(project, "secrets"), join(project, "innocent"));
    const check = checker({ rules: rules({ deny: ["Read(./secrets/**)"] }) });
    expect(await check(TOOLS.Read, { file_path: "secrets/key.pem" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(TOOLS.Read, { file_path: join(project, "secrets", "key.pem") }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(TOOLS.Read, { file_path: "innocent/key.pem" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(TOOLS.Grep, { pattern: "x", path: "secrets" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(TOOLS.Glob, { pattern: "*", path: "secrets" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(TOOLS.Read, { file_path: "src/a.ts" }, ctx)).toEqual({ behavior: "allow" });
  });

  it("allow an Edit only when the path and its real path both match", async () => {
    await mkdir(join(project, "src"));
    await symlink(join(project, "secrets"), join(project, "src", "link"));
    const check = checker({ rules: rules({ allow: ["Edit(./src/**)"] }) });
    expect(await check(TOOLS.Edit, { file_path: "src/a.ts" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.Write, { file_path: "src/new/b.ts" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.Edit, { file_path: "src/link/key" }, ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(TOOLS.Edit, { file_path: "README.md" }, ctx)).toMatchObject({ behavior: "deny" });
  });

  it("offers a file in the project folder itself its own rule, which allows that file and no other", async () => {
    const asked = checker();
    expect(await asked(TOOLS.Edit, { file_path: "notes.txt" }, ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining('add "Edit(./notes.txt)"'),
    });
    const check = checker({ rules: rules({ allow: ["Edit(./notes.txt)"] }) });
    expect(await check(TOOLS.Edit, { file_path: "notes.txt" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.Edit, { file_path: "other.txt" }, ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(TOOLS.Edit, { file_path: "src/notes.txt" }, ctx)).toMatchObject({ behavior: "deny" });
  });
});

describe("modes", () => {
  it("acceptEdits allows Write and Edit inside the workspace only, and still asks for Bash", async () => {
    const check = checker({ mode: "acceptEdits", additionalDirectories: [join(base, "shared")] });
    expect(await check(TOOLS.Edit, { file_path: "src/a.ts" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.Write, { file_path: join(base, "shared", "x.md") }, ctx)).toEqual({
      behavior: "allow",
    });
    expect(await check(TOOLS.Write, { file_path: join(base, "elsewhere.txt") }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await check(...bash("make"), ctx)).toMatchObject({ behavior: "deny" });
  });

  it("bypassPermissions allows everything except explicit denies", async () => {
    const check = checker({
      mode: "bypassPermissions",
      rules: rules({ ask: ["Bash(ls)"], deny: ["Bash(rm:*)"] }),
    });
    expect(await check(...bash("ls"), ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.mcp, {}, ctx)).toEqual({ behavior: "allow" });
    expect(await check(...bash("rm x"), ctx)).toMatchObject({ behavior: "deny" });
  });

  it("plan allows only read-only tools, even when a rule allows others", async () => {
    const check = checker({ mode: "plan", rules: rules({ allow: ["Bash", "Edit"] }) });
    expect(await check(TOOLS.Read, { file_path: "a" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(...bash("ls"), ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("plan mode"),
    });
    expect(await check(TOOLS.Edit, { file_path: "a" }, ctx)).toMatchObject({ behavior: "deny" });
  });

  it("can be switched during a session", async () => {
    const check = checker();
    expect(await check(TOOLS.Edit, { file_path: "a" }, ctx)).toMatchObject({ behavior: "deny" });
    check.setMode("acceptEdits");
    expect(await check(TOOLS.Edit, { file_path: "a" }, ctx)).toEqual({ behavior: "allow" });
  });
});

describe("asking", () => {
  it("passes the call, its display and suggested rules; allow_always adds session rules", async () => {
    const asked: PermissionRequest[] = [];
    const check = checker({
      ask: async (request) => {
        asked.push(request);
        return "allow_always";
      },
    });
    expect(await check(...bash("rm -rf build"), ctx)).toEqual({ behavior: "allow" });
    expect(asked[0]).toEqual({
      toolName: "Bash",
      input: { command: "rm -rf build" },
      toolUseId: "toolu_1",
      display: "Bash(rm -rf build)",
      suggestedRules: ["Bash(rm:*)"],
      reason: "no rule allows it",
      facts: { command: "rm -rf build" },
      signal: ctx.signal,
    });
    expect(await check(...bash("rm -rf dist"), ctx)).toEqual({ behavior: "allow" });
    expect(asked).toHaveLength(1);
  });

  it("says when a sub-agent asks, with its path", async () => {
    const asked: PermissionRequest[] = [];
    const check = checker({
      ask: async (request) => {
        asked.push(request);
        return "deny";
      },
    });
    await check(...bash("make"), { ...ctx, agentPath: ["toolu_task"] });
    await check(...bash("make"), { ...ctx, agentPath: [] });
    expect(asked.map((request) => request.agentPath)).toEqual([["toolu_task"], undefined]);
  });

  it("allow_once does not remember; deny tells the model the user refused", async () => {
    let answer: "allow_once" | "deny" = "allow_once";
    let count = 0;
    const check = checker({
      ask: async () => {
        count++;
        return answer;
      },
    });
    expect(await check(...bash("make"), ctx)).toEqual({ behavior: "allow" });
    answer = "deny";
    expect(await check(...bash("make"), ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("The user denied permission to use Bash(make)"),
    });
    expect(count).toBe(2);
  });

  it("allowAlways adds a rule by hand and returns it", async () => {
    const check = checker();
    expect(check.allowAlways(" Bash(npm run build:*) ")).toBe("Bash(npm run build:*)");
    expect(await check(...bash("npm run build"), ctx)).toEqual({ behavior: "allow" });
    expect(() => check.allowAlways("Bash(")).toThrow(/no closing/);
  });
});

describe("the question for a compound command that rules allow in part", () => {
  it("names the parts no rule allows, and suggests rules only for them", async () => {
    const asked: PermissionRequest[] = [];
    const check = checker({
      allowedTools: ["Bash(sleep:*)"],
      ask: async (request) => {
        asked.push(request);
        return "deny";
      },
    });
    await check(...bash("sleep 30; echo done"), ctx);
    expect(asked[0]?.reason).toBe('rules allow part of the command, not "echo done"');
    expect(asked[0]?.suggestedRules).toEqual(["Bash(echo:*)"]);
  });
});

describe("a loop's question (regression: `for … do echo …; sleep 1; done` became Bash(for:*))", () => {
  it("suggests rules for the commands in the loop, not for its header; allowed, the loop runs", async () => {
    const asked: PermissionRequest[] = [];
    const check = checker({
      ask: async (request) => {
        asked.push(request);
        return "allow_always";
      },
    });
    await check(...bash("for i in 1 2 3; do echo $i; sleep 1; done"), ctx);
    expect(asked[0]?.suggestedRules).toEqual(["Bash(echo:*)", "Bash(sleep:*)"]);
    expect(await check(...bash("for f in a b; do echo $f; done"), ctx)).toEqual({ behavior: "allow" });
    // A substitution in the word list is a command of its own, still checked.
    expect(await check(...bash("for f in $(rm -rf x); do echo $f; done"), ctx)).toMatchObject({
      behavior: "allow",
    });
    // Not a harmless command, and seen only inside a loop: "always" is for this exact line, not Bash(rm:*).
    expect(asked.at(-1)?.suggestedRules).toEqual(["Bash(for f in $(rm -rf x); do echo $f; done)"]);
  });
});

describe("the model's own folders (its memory)", () => {
  it("allow Write and Edit inside them, but not in plan mode, and never over a deny rule", async () => {
    const memory = join(base, "home", ".mitsu", "projects", "p", "memory");
    const inside = { file_path: join(memory, "MEMORY.md"), content: "x" };
    const outside = { file_path: join(base, "other.md"), content: "x" };
    expect((await checker({ ownFolders: [memory] })(TOOLS.Write, inside, ctx)).behavior).toBe("allow");
    expect((await checker({ ownFolders: [memory] })(TOOLS.Edit, inside, ctx)).behavior).toBe("allow");
    expect((await checker({ ownFolders: [memory] })(TOOLS.Write, outside, ctx)).behavior).toBe("deny");
    expect((await checker({ ownFolders: [memory], mode: "plan" })(TOOLS.Write, inside, ctx)).behavior).toBe(
      "deny",
    );
    const denied = createPermissionChecker({
      rules: rules({ deny: [`Edit(/${join(memory, "**")})`] }),
      mode: "default",
      cwd: project,
      ownFolders: [memory],
    });
    expect((await denied(TOOLS.Write, inside, ctx)).behavior).toBe("deny");
  });
});

describe("sandboxed Bash (autoAllowBashIfSandboxed)", () => {
  it("runs a command no rule allows without asking, but deny and ask rules, plan mode and protected paths still hold", async () => {
    const auto = (extra: Partial<PermissionCheckerOptions> = {}) =>
      checker({ sandboxAutoAllow: true, ...extra });
    expect((await auto()(...bash("npm test && rm -rf build"), ctx)).behavior).toBe("allow");
    expect((await auto()(...bash("cat .gitignore .github/x && ls foo.git"), ctx)).behavior).toBe("allow");
    expect((await checker()(...bash("npm test"), ctx)).behavior).toBe("deny");
    const denied = auto({ rules: rules({ deny: ["Bash(rm:*)"] }) });
    expect((await denied(...bash("npm test && rm -rf build"), ctx)).behavior).toBe("deny");
    expect((await auto({ mode: "plan" })(...bash("ls"), ctx)).behavior).toBe("deny");
    for (const command of [
      "echo x > .git/hooks/pre-commit",
      "cp .mitsu/settings.json x",
      "rm -r ./.claude",
      "echo x>.mitsu/settings.json",
      "cp evil .m*/settings.json",
    ]) {
      expect((await auto()(...bash(command), ctx)).behavior, command).toBe("deny");
    }
  });

  it("still asks for what the bash parse cannot account for, and deny rules see through wrappers", async () => {
    const auto = (extra: Partial<PermissionCheckerOptions> = {}) =>
      checker({ sandboxAutoAllow: true, ...extra });
    for (const command of ['"$cmd" -rf build', 'eval "$x"']) {
      expect((await auto()(...bash(command), ctx)).behavior, command).toBe("deny");
    }
    const denied = auto({ rules: rules({ deny: ["Bash(rm:*)"] }) });
    for (const command of ["timeout 5 rm -rf build", "env X=1 rm -rf build", "sh -c 'rm -rf build'"]) {
      const decision = await denied(...bash(command), ctx);
      expect(decision.behavior, command).toBe("deny");
      expect("message" in decision ? decision.message : "", command).toContain("Bash(rm:*)");
    }
  });
});

describe("the tools that touch only the model's own state", () => {
  it("TodoWrite, BashOutput and KillShell run without asking", async () => {
    for (const name of ["TodoWrite", "BashOutput", "KillShell"]) {
      expect((await checker()(tool(name), {}, ctx)).behavior, name).toBe("allow");
    }
  });
});

describe("WebFetch", () => {
  it("asks per site, and 'always' allows that host only (domain rules, subdomain wildcards)", async () => {
    const fetchTool = tool("WebFetch", true, (input) => ({ url: input.url! }));
    const asked: string[][] = [];
    const check = checker({
      ask: async (request) => {
        asked.push(request.suggestedRules);
        return "allow_always";
      },
    });
    expect((await check(fetchTool, { url: "https://docs.example.com/a", prompt: "?" }, ctx)).behavior).toBe(
      "allow",
    );
    expect(asked).toEqual([["WebFetch(domain:docs.example.com)"]]);
    await check(fetchTool, { url: "https://DOCS.example.com./b", prompt: "?" }, ctx);
    expect(asked).toHaveLength(1);
    await check(fetchTool, { url: "https://evil.test/", prompt: "?" }, ctx);
    expect(asked).toHaveLength(2);
    const wildcard = checker({ allowedTools: ["WebFetch(domain:*.example.com)"] });
    expect((await wildcard(fetchTool, { url: "https://a.b.example.com/", prompt: "?" }, ctx)).behavior).toBe(
      "allow",
    );
    expect((await wildcard(fetchTool, { url: "https://example.com/", prompt: "?" }, ctx)).behavior).toBe(
      "deny",
    );
    expect((await wildcard(fetchTool, { url: "https://notexample.com/", prompt: "?" }, ctx)).behavior).toBe(
      "deny",
    );
  });
});

describe("permission facts: the checker knows a call only by what its tool states", () => {
  it("a tool that states no facts is matched by name only, whatever its input fields are called", async () => {
    // Regression: the checker read `file_path` and `command` from any tool's input, by name.
    const check = checker({
      mode: "acceptEdits",
      rules: rules({ deny: ["Edit(./secrets/**)", "Bash(rm:*)"] }),
    });
    const opaque = tool("Deploy");
    const decision = await check(opaque, { file_path: "secrets/key", command: "rm -rf /" }, ctx);
    expect(decision).toMatchObject({ behavior: "deny" });
    expect(decision.behavior === "deny" && decision.message).toContain("Permission to use Deploy was denied");
    expect(decision.behavior === "deny" && decision.message).not.toContain("rule");
  });

  it("a new tool that states it writes files is covered by Edit rules and by acceptEdits, like Write", async () => {
    const move = tool("Move", false, (input) => ({
      paths: [
        { path: input.from!, access: "read" },
        { path: input.to!, access: "write" },
      ],
    }));
    const check = checker({ mode: "acceptEdits", rules: rules({ deny: ["Edit(./secrets/**)"] }) });
    expect(await check(move, { from: "a.txt", to: "b.txt" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(move, { from: "a.txt", to: "secrets/b.txt" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    // One path outside the workspace: acceptEdits does not cover the call.
    expect(await check(move, { from: "a.txt", to: join(base, "out.txt") }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(
      await checker({ allowedTools: ["Edit(./docs/**)"] })(move, { from: "docs/a", to: "docs/b" }, ctx),
    ).toEqual({ behavior: "allow" });
  });

  it("a tool that states a URL is matched by WebFetch domain rules", async () => {
    const fetchTool = tool("WebFetch", true, (input) => ({ url: input.url! }));
    const check = checker({ rules: rules({ allow: ["WebFetch(domain:example.com)"] }) });
    expect(await check(fetchTool, { url: "https://example.com/a" }, ctx)).toEqual({ behavior: "allow" });
    expect(await check(fetchTool, { url: "https://evil.test/" }, ctx)).toMatchObject({ behavior: "deny" });
  });
});

describe("workspace folders added and removed while the session runs", () => {
  it("a folder added by an update counts at once for read-only Bash and acceptEdits; removed, it no longer does", async () => {
    const other = join(base, "other");
    await mkdir(other);
    const check = checker({ mode: "acceptEdits" });
    expect(await check(...bash(`cat ${other}/x.txt`), ctx)).toMatchObject({ behavior: "deny" });
    await check.applyUpdates([{ type: "addDirectories", directories: [other], destination: "session" }]);
    expect(await check(...bash(`cat ${other}/x.txt`), ctx)).toEqual({ behavior: "allow" });
    expect(await check(TOOLS.Write, { file_path: join(other, "y.txt") }, ctx)).toEqual({ behavior: "allow" });
    await check.applyUpdates([{ type: "removeDirectories", directories: [other], destination: "session" }]);
    expect(await check(...bash(`cat ${other}/x.txt`), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(TOOLS.Write, { file_path: join(other, "y.txt") }, ctx)).toMatchObject({
      behavior: "deny",
    });
  });

  it("a folder swapped for a link after it was added does not reach where the link points", async () => {
    const other = join(base, "other");
    const secret = join(base, "secret");
    await mkdir(other);
    await mkdir(secret);
    const check = checker({ mode: "acceptEdits" });
    await check.applyUpdates([{ type: "addDirectories", directories: [other], destination: "session" }]);
    const { rename } = await import("node:fs/promises");
    await rename(other, join(base, "other-old"));
    await symlink(secret, other);
    expect(await check(...bash(`cat ${other}/key.txt`), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(...bash(`cat ${secret}/key.txt`), ctx)).toMatchObject({ behavior: "deny" });
    expect(await check(TOOLS.Write, { file_path: join(other, "y.txt") }, ctx)).toMatchObject({
      behavior: "deny",
    });
  });

  it("a folder that does not exist is not added, and says so", async () => {
    const warnings: string[] = [];
    const check = checker({ onWarning: (m) => warnings.push(m) });
    await check.applyUpdates([
      { type: "addDirectories", directories: [join(base, "nowhere")], destination: "session" },
    ]);
    expect(warnings).toEqual([
      `addDirectories: ${join(base, "nowhere")} does not exist; the folder was not added`,
    ]);
  });
});
