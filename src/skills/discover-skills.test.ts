import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_SKILLS_DIR, discoverSkills } from "./discover-skills.js";

let root: string;
let cwd: string;
let home: string;
let builtin: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "mitsu-skills-"));
  cwd = join(root, "project");
  home = join(root, "home");
  builtin = join(root, "builtin");
  await Promise.all([mkdir(cwd), mkdir(home), mkdir(builtin)]);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

const skill = (name: string, description = `The ${name} skill.`, body = `Do ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

const discover = () => discoverSkills({ cwd, home, builtinDir: builtin, trusted: true });

describe("discoverSkills", () => {
  it("finds Claude Code's user folders ~/.claude/skills and ~/.claude/commands; ~/.mitsu wins a same name", async () => {
    await put({
      "home/.claude/skills/review/SKILL.md": skill("review"),
      "home/.claude/skills/shared/SKILL.md": skill("shared", "From Claude Code."),
      "home/.mitsu/skills/shared/SKILL.md": skill("shared", "From mitsu."),
      "home/.claude/commands/ship.md": "Ship it.",
    });
    const { skills, commands } = await discover();
    expect(skills.map((s) => [s.name, s.source, s.description])).toEqual([
      ["review", "user", "The review skill."],
      ["shared", "user", "From mitsu."],
    ]);
    expect(commands.map((c) => [c.name, c.source])).toEqual([["ship", "user"]]);
  });

  it("finds skills in every location, with their source, folder and extra files", async () => {
    await put({
      "project/.mitsu/skills/alpha/SKILL.md": skill("alpha"),
      "project/.claude/skills/beta/SKILL.md": skill("beta"),
      "project/.agents/skills/gamma/SKILL.md": skill("gamma"),
      "project/.agents/skills/gamma/scripts/run.sh": "echo hi",
      "project/.agents/skills/gamma/references/api.md": "# API",
      "home/.mitsu/skills/delta/SKILL.md": skill("delta"),
      "builtin/epsilon/SKILL.md": skill("epsilon"),
    });
    const { skills, commands, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(commands).toEqual([]);
    expect(skills.map((s) => [s.name, s.source])).toEqual([
      ["alpha", "project"],
      ["beta", "project"],
      ["delta", "user"],
      ["epsilon", "builtin"],
      ["gamma", "project"],
    ]);
    const gamma = skills.find((s) => s.name === "gamma")!;
    expect(gamma).toMatchObject({
      kind: "skill",
      description: "The gamma skill.",
      body: "Do gamma.",
      dir: join(cwd, ".agents/skills/gamma"),
      path: join(cwd, ".agents/skills/gamma/SKILL.md"),
      files: ["references/api.md", "scripts/run.sh"],
      disableModelInvocation: false,
      userInvocable: true,
    });
  });

  it("reads every optional field", async () => {
    await put({
      "project/.mitsu/skills/deploy/SKILL.md": [
        "---",
        "name: deploy",
        "description: Deploy to an environment.",
        "allowed-tools: Bash(./scripts/deploy.sh:*), Read",
        "disable-model-invocation: true",
        "user-invocable: false",
        "argument-hint: [env]",
        "model: claude-sonnet-4-5",
        "license: Apache-2.0",
        "compatibility: needs bash",
        "metadata:",
        "  version: '1.2'",
        "context: fork",
        "---",
        "Deploy $ARGUMENTS.",
      ].join("\n"),
    });
    const { skills, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(skills[0]).toMatchObject({
      name: "deploy",
      allowedTools: ["Bash(./scripts/deploy.sh:*)", "Read"],
      disableModelInvocation: true,
      userInvocable: false,
      argumentHint: "[env]",
      model: "claude-sonnet-4-5",
      license: "Apache-2.0",
      compatibility: "needs bash",
      metadata: { version: "1.2" },
      extra: { context: "fork" },
    });
  });

  it("accepts allowed-tools as a YAML list or a space separated string", async () => {
    await put({
      "project/.mitsu/skills/a/SKILL.md":
        "---\nname: a\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git log:*)\n---\n",
      "project/.mitsu/skills/b/SKILL.md":
        "---\nname: b\ndescription: d\nallowed-tools: Bash(git status:*) Grep\n---\n",
    });
    const { skills } = await discover();
    expect(skills.map((s) => s.allowedTools)).toEqual([
      ["Read", "Bash(git log:*)"],
      ["Bash(git status:*)", "Grep"],
    ]);
  });

  it("loads the variations found in the wild: CRLF, BOM, folded descriptions, quotes, unknown fields", async () => {
    await put({
      "project/.mitsu/skills/crlf/SKILL.md":
        "---\r\nname: crlf\r\ndescription: Windows file\r\n---\r\nStep 1\r\nStep 2\r\n",
      "project/.mitsu/skills/bom/SKILL.md": `\uFEFF${skill("bom")}`,
      "project/.mitsu/skills/folded/SKILL.md":
        "---\nname: folded\ndescription: >\n  Folded over\n  two lines.\n---\nbody\n",
      "project/.mitsu/skills/literal/SKILL.md":
        "---\nname: literal\ndescription: |\n  Line one\n  Line two\n---\n",
      "project/.mitsu/skills/quoted/SKILL.md": `---\nname: "quoted"\ndescription: 'It''s: quoted'\n---\n`,
      "project/.mitsu/skills/extra/SKILL.md":
        "---\nname: extra\ndescription: d\nversion: 3\nhooks:\n  pre: x\n---\n",
    });
    const { skills, warnings } = await discover();
    expect(warnings).toEqual([]);
    const by = Object.fromEntries(skills.map((s) => [s.name, s]));
    expect(Object.keys(by)).toEqual(["bom", "crlf", "extra", "folded", "literal", "quoted"]);
    expect(by.crlf!.body).toBe("Step 1\nStep 2");
    expect(by.folded!.description).toBe("Folded over two lines.");
    expect(by.literal!.description).toBe("Line one\nLine two");
    expect(by.quoted!.description).toBe("It's: quoted");
    expect(by.extra!.extra).toEqual({ version: 3, hooks: { pre: "x" } });
  });

  it("loads an unquoted description containing ': ' with a notice, not a skip", async () => {
    await put({ "project/.mitsu/skills/colon/SKILL.md": skill("colon", "Use when: the user asks") });
    const { skills, warnings } = await discover();
    expect(skills[0]?.description).toBe("Use when: the user asks");
    expect(warnings).toEqual([
      expect.objectContaining({
        path: join(cwd, ".mitsu/skills/colon/SKILL.md"),
        field: "description",
        skipped: false,
      }),
    ]);
  });

  it.each([
    [
      "invalid YAML",
      "---\nname: bad\ndescription: [unclosed\n---\n",
      "description",
      /invalid YAML at line 3/,
    ],
    ["missing description and body", "---\nname: bad\n---\n", "description", /is required/],
    ["empty description and body", "---\nname: bad\ndescription: ''\n---\n", "description", /is required/],
    ["no frontmatter", "Just a body\n", "frontmatter", /is missing/],
    ["unterminated frontmatter", "---\nname: bad\n", "frontmatter", /no closing/],
    [
      "a non-boolean flag",
      "---\nname: bad\ndescription: d\nuser-invocable: maybe\n---\n",
      "user-invocable",
      /true or false/,
    ],
    [
      "a list description",
      "---\nname: bad\ndescription:\n  - a\n---\n",
      "description",
      /must be text, got a list/,
    ],
    ["metadata not a mapping", "---\nname: bad\ndescription: d\nmetadata: 3\n---\n", "metadata", /mapping/],
  ])("skips a file with %s, with one warning naming file and field", async (_, text, field, message) => {
    await put({
      "project/.mitsu/skills/bad/SKILL.md": text,
      "project/.mitsu/skills/good/SKILL.md": skill("good"),
    });
    const { skills, warnings } = await discover();
    expect(skills.map((s) => s.name)).toEqual(["good"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      path: join(cwd, ".mitsu/skills/bad/SKILL.md"),
      field,
      skipped: true,
    });
    expect(warnings[0]!.message).toMatch(message);
  });

  it.each([
    ["Upper", "must use only lowercase"],
    ["-lead", "must use only lowercase"],
    ["trail-", "must use only lowercase"],
    ["dou--ble", "must use only lowercase"],
    ["under_score", "must use only lowercase"],
    ["x".repeat(65), "at most 64 characters"],
  ])(
    "loads a skill named %s by its folder's name, with a notice (Claude Code loads it)",
    async (name, message) => {
      await put({ [`project/.mitsu/skills/${name}/SKILL.md`]: skill(name) });
      const { skills, warnings } = await discover();
      expect(skills.map((s) => s.name)).toEqual([name]);
      expect(warnings).toEqual([
        expect.objectContaining({ field: "name", message: expect.stringContaining(message), skipped: false }),
      ]);
    },
  );

  it("invokes a skill by its folder's name: a differing or missing name, a long or missing description are notices", async () => {
    await put({
      // Shapes found in published skill collections.
      "project/.claude/skills/pdf-tools/SKILL.md":
        "---\nname: PDF Tools\ndescription: Work with PDFs\n---\nUse pdftotext.\n",
      "project/.claude/skills/no-name/SKILL.md": "---\ndescription: Has no name\n---\nBody.\n",
      "project/.claude/skills/no-description/SKILL.md":
        "---\nname: no-description\n---\n# Summarise a file\n\nSteps.\n",
      "project/.claude/skills/long/SKILL.md": `---\nname: long\ndescription: ${"x".repeat(1100)}\n---\nBody.\n`,
    });
    const { skills, warnings } = await discover();
    expect(skills.map((s) => s.name)).toEqual(["long", "no-description", "no-name", "pdf-tools"]);
    expect(skills.find((s) => s.name === "no-description")?.description).toBe("Summarise a file");
    expect(skills.find((s) => s.name === "long")?.description).toHaveLength(1100);
    expect(
      warnings.map((w) => `${w.path.split("/").at(-2)} ${w.field} ${w.skipped} ${w.message}`).sort(),
    ).toEqual([
      "long description false is 1100 characters, more than the 1,024 of the Agent Skills format",
      "no-description description false is missing; the body's first line is used",
      'pdf-tools name false "PDF Tools" differs from the folder name; invoked as /pdf-tools',
    ]);
  });

  it("accepts a 64-character name and a 1024-character description", async () => {
    const name = "a".repeat(64);
    await put({ [`project/.mitsu/skills/${name}/SKILL.md`]: skill(name, "d".repeat(1024)) });
    const { skills, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(skills[0]?.name).toBe(name);
  });

  it("points at misplaced files: a loose .md, a lower-case skill.md, a folder without SKILL.md", async () => {
    await put({
      "project/.mitsu/skills/loose.md": skill("loose"),
      "project/.mitsu/skills/lower/skill.md": skill("lower"),
      "project/.mitsu/skills/empty/notes.txt": "",
    });
    const { skills, warnings } = await discover();
    expect(skills).toEqual([]);
    expect(warnings.map((w) => [w.path.slice(cwd.length + 1), w.field, w.skipped])).toEqual([
      [".mitsu/skills/empty", "SKILL.md", true],
      [".mitsu/skills/loose.md", "SKILL.md", true],
      [".mitsu/skills/lower/skill.md", "SKILL.md", true],
    ]);
    expect(warnings[1]!.message).toContain("loose/SKILL.md");
  });

  it("follows a symbolic link to a shared skill folder", async () => {
    await put({ "shared/linked/SKILL.md": skill("linked") });
    await mkdir(join(cwd, ".mitsu/skills"), { recursive: true });
    await symlink(join(root, "shared/linked"), join(cwd, ".mitsu/skills/linked"), "dir");
    const { skills } = await discover();
    expect(skills.map((s) => s.name)).toEqual(["linked"]);
  });

  it("finds commands, namespaced by subfolder, with optional frontmatter", async () => {
    await put({
      "project/.claude/commands/deploy.md":
        "---\ndescription: Deploy it\nargument-hint: [env]\n---\nDeploy $1\n",
      "project/.claude/commands/frontend/button.md": "# Make a button\n\nCreate a button named $ARGUMENTS.\n",
      "project/.mitsu/commands/a/b/deep.md": "Deep.",
      "project/.mitsu/commands/notes.txt": "not a command",
      "home/.mitsu/commands/mine.md": "Mine.",
    });
    const { commands, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(commands.map((c) => [c.name, c.source, c.description])).toEqual([
      ["a:b:deep", "project", "Deep."],
      ["deploy", "project", "Deploy it"],
      ["frontend:button", "project", "Make a button"],
      ["mine", "user", "Mine."],
    ]);
    expect(commands[1]).toMatchObject({ kind: "command", argumentHint: "[env]", body: "Deploy $1" });
  });

  it("reads name:sub.md files, {{…}} templates and an unquoted argument-hint without a notice (published commands' shapes)", async () => {
    await put({
      "project/.claude/commands/git:commit.md": "---\ndescription: Commit staged work\n---\nCommit.\n",
      "project/.claude/commands/template.md":
        "---\ndescription: {{DESCRIPTION}}\nargument-hint: {{ARGS}}\n---\nDo {{TASK}} with $ARGUMENTS\n",
      "project/.claude/commands/pr.md":
        "---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Review pull request\n---\nReview PR #$0.\n",
    });
    const { commands, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(commands.map((c) => [c.name, c.description, c.argumentHint])).toEqual([
      ["git:commit", "Commit staged work", undefined],
      ["pr", "Review pull request", "[pr-number] [priority] [assignee]"],
      ["template", "{{DESCRIPTION}}", "{{ARGS}}"],
    ]);
  });

  it("skips a command with bad frontmatter or an untypeable name, and loads the rest", async () => {
    await put({
      "project/.claude/commands/broken.md": "---\nmodel: [x\n---\nbody",
      "project/.claude/commands/with space.md": "body",
      "project/.claude/commands/fine.md": "Fine.",
    });
    const { commands, warnings } = await discover();
    expect(commands.map((c) => c.name)).toEqual(["fine"]);
    expect(warnings.map((w) => [w.path.slice(cwd.length + 1), w.field])).toEqual([
      [".claude/commands/broken.md", "model"],
      [".claude/commands/with space.md", "name"],
    ]);
  });

  it("resolves same-name conflicts: project beats user beats builtin, with a warning for each loser", async () => {
    await put({
      "project/.mitsu/skills/shared/SKILL.md": skill("shared", "project"),
      "home/.mitsu/skills/shared/SKILL.md": skill("shared", "user"),
      "builtin/shared/SKILL.md": skill("shared", "builtin"),
      "home/.mitsu/skills/mine/SKILL.md": skill("mine", "user"),
      "builtin/mine/SKILL.md": skill("mine", "builtin"),
    });
    const { skills, warnings } = await discover();
    expect(skills.map((s) => [s.name, s.description])).toEqual([
      ["mine", "user"],
      ["shared", "project"],
    ]);
    expect(warnings.map((w) => [w.path.slice(root.length + 1), w.field, w.skipped])).toEqual([
      ["home/.mitsu/skills/shared/SKILL.md", "name", true],
      ["builtin/mine/SKILL.md", "name", true],
      ["builtin/shared/SKILL.md", "name", true],
    ]);
    expect(warnings[0]!.message).toContain(join(cwd, ".mitsu/skills/shared/SKILL.md"));
  });

  it("lets a project command shadow a shipped skill, and a skill beat a command from the same place", async () => {
    await put({
      "builtin/commit/SKILL.md": skill("commit"),
      "project/.claude/commands/commit.md": "Our own commit steps.",
      "project/.mitsu/skills/deploy/SKILL.md": skill("deploy"),
      "project/.mitsu/commands/deploy.md": "Command deploy.",
      "project/.claude/skills/deploy/SKILL.md": skill("deploy", "second"),
    });
    const { skills, commands, warnings } = await discover();
    expect(skills.map((s) => [s.name, s.path.slice(root.length + 1)])).toEqual([
      ["deploy", "project/.mitsu/skills/deploy/SKILL.md"],
    ]);
    expect(commands.map((c) => c.name)).toEqual(["commit"]);
    expect(warnings.map((w) => w.path.slice(root.length + 1)).sort()).toEqual([
      "builtin/commit/SKILL.md",
      "project/.claude/skills/deploy/SKILL.md",
      "project/.mitsu/commands/deploy.md",
    ]);
  });

  it("reads ~/.mitsu once when the project is the home folder", async () => {
    await put({ "home/.mitsu/skills/solo/SKILL.md": skill("solo") });
    const { skills, warnings } = await discoverSkills({ cwd: home, home, builtinDir: null });
    expect(warnings).toEqual([]);
    expect(skills.map((s) => [s.name, s.source])).toEqual([["solo", "project"]]);
  });

  it("finds nothing, quietly, when no folder exists", async () => {
    expect(await discover()).toEqual({ skills: [], commands: [], warnings: [], ignored: [] });
  });

  it("lists at most 50 extra files and skips hidden files and node_modules", async () => {
    const files: Record<string, string> = { "project/.mitsu/skills/big/SKILL.md": skill("big") };
    for (let i = 0; i < 60; i++)
      files[`project/.mitsu/skills/big/refs/f${String(i).padStart(2, "0")}.md`] = "";
    files["project/.mitsu/skills/big/.hidden"] = "";
    files["project/.mitsu/skills/big/node_modules/x.js"] = "";
    await put(files);
    const { skills } = await discover();
    const listed = skills[0]!.files;
    expect(listed).toHaveLength(51);
    expect(listed[0]).toBe("refs/f00.md");
    expect(listed[50]).toBe("…");
  });
});

describe("the shipped skills", () => {
  it("parse without warnings and are found from the package's skills folder", async () => {
    const { skills, warnings } = await discoverSkills({ cwd: root, home, builtinDir: BUILTIN_SKILLS_DIR });
    expect(warnings).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(["commit", "init", "review"]);
    for (const s of skills) {
      expect(s.source).toBe("builtin");
      expect(s.description.length).toBeGreaterThan(40);
      expect(s.body).toContain("$ARGUMENTS");
    }
    const commit = skills.find((s) => s.name === "commit")!;
    expect(commit.allowedTools).toEqual([
      "Bash(git status:*)",
      "Bash(git diff:*)",
      "Bash(git log:*)",
      "Bash(git add:*)",
      "Bash(git commit:*)",
    ]);
    expect(commit.body).toMatch(/--no-verify/);
    expect(commit.body).toMatch(/Never `git push`/);
  });

  it("is the default builtin folder", async () => {
    const { skills } = await discoverSkills({ cwd: root, home });
    expect(skills.map((s) => s.name)).toEqual(["commit", "init", "review"]);
  });
});
