import { describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { testCommand, testSkill } from "../testing/test-skill.js";
import { ACTIVE_SKILLS, activateSkill, activeAllowedTools, deactivateSkill } from "./active-skills.js";
import { createSkillTool } from "./skill-tool.js";

const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "toolu_1",
  state: new ToolState(),
  agentPath: [],
});

const skills = [
  testSkill("commit", {
    body: "Commit. Hint: $ARGUMENTS",
    files: ["scripts/check.sh"],
    allowedTools: ["Bash(git status:*)", "Bash(git commit:*)"],
  }),
  testSkill("deploy", { disableModelInvocation: true }),
  testSkill("helper", { userInvocable: false }),
];

describe("createSkillTool", () => {
  const tool = createSkillTool(() => skills);

  it("has a stable definition that lists no skills", () => {
    expect(tool.name).toBe("Skill");
    expect(tool.inputSchema).toMatchObject({ required: ["skill"], additionalProperties: false });
    expect(tool.description).not.toContain("helper");
    expect(createSkillTool(() => []).description).toBe(tool.description);
    expect(tool.readOnly).toBe(true);
    expect(tool.summarize?.({ skill: "commit", args: "fix" })).toBe("Skill commit fix");
  });

  it("returns the body with arguments expanded, the folder's path and its files", async () => {
    const output = await tool.run({ skill: "commit", args: "typo" }, context());
    expect(output).toBe(
      [
        "Base directory for this skill: /skills/commit",
        "Files in this folder (read one only when the instructions need it):",
        "- scripts/check.sh",
        "",
        "Commit. Hint: typo",
      ].join("\n"),
    );
  });

  it("accepts a leading slash and skills hidden only from the user", async () => {
    await expect(tool.run({ skill: "/commit" }, context())).resolves.toContain("Commit. Hint: ");
    await expect(tool.run({ skill: "helper" }, context())).resolves.toContain("Do helper.");
  });

  it("names the available skills when the name is unknown", async () => {
    const run = tool.run({ skill: "deplyo" }, context());
    await expect(run).rejects.toBeInstanceOf(ToolError);
    await expect(run).rejects.toThrow('Unknown skill "deplyo". Available skills: commit, helper.');
  });

  it("refuses a skill hidden from the model, and says the user can run it", async () => {
    await expect(tool.run({ skill: "deploy" }, context())).rejects.toThrow(
      /only be run by the user, by typing \/deploy.*Available skills: commit, helper\./,
    );
  });

  it("says so when there are no skills", async () => {
    await expect(createSkillTool(() => []).run({ skill: "x" }, context())).rejects.toThrow(
      "No skills are available.",
    );
  });

  it("reads the catalog at each call", async () => {
    const list = [testSkill("one")];
    const live = createSkillTool(() => list);
    list.push(testSkill("two"));
    await expect(live.run({ skill: "two" }, context())).resolves.toContain("Do two.");
  });

  it("pre-approves the skill's allowed-tools in the run's state", async () => {
    const ctx = context();
    expect(activeAllowedTools(ctx.state)).toEqual([]);
    await tool.run({ skill: "commit" }, ctx);
    expect(ctx.state.peek(ACTIVE_SKILLS)).toBeInstanceOf(Map);
    expect(activeAllowedTools(ctx.state)).toEqual(["Bash(git status:*)", "Bash(git commit:*)"]);
    await tool.run({ skill: "helper" }, ctx); // no allowed-tools: changes nothing
    expect(activeAllowedTools(ctx.state)).toHaveLength(2);
  });
});

describe("active skills' allowed tools", () => {
  it("merges rules of several skills and commands without duplicates, and can end them", () => {
    const state = new ToolState();
    activateSkill(state, testSkill("a", { allowedTools: ["Read", "Bash(git log:*)"] }));
    activateSkill(state, testCommand("b", { allowedTools: ["Read", "Grep"] }));
    expect(activeAllowedTools(state)).toEqual(["Read", "Bash(git log:*)", "Grep"]);
    deactivateSkill(state, "a");
    expect(activeAllowedTools(state)).toEqual(["Read", "Grep"]);
    deactivateSkill(state);
    expect(activeAllowedTools(state)).toEqual([]);
  });

  it("reads nothing from a state where no skill was ever active, and creates no slot", () => {
    const state = new ToolState();
    expect(activeAllowedTools(state)).toEqual([]);
    expect(state.names()).toEqual([]);
  });
});

describe("the Skill tool with inline capabilities", () => {
  it("runs the body's !`command` once the skill is active (its allowed-tools apply) and inlines @file", async () => {
    const skill = testSkill("status", {
      body: "Branch: !`git branch --show-current`\nSee @notes.md",
      allowedTools: ["Bash(git branch:*)"],
    });
    const seen: Array<{ command: string; rules: string[] }> = [];
    const tool = createSkillTool(() => [skill], {
      inline: (run) => ({
        runCommand: async (command) => {
          seen.push({ command, rules: activeAllowedTools(run.state) });
          return "main\n";
        },
        readFile: async (path) => (path === "notes.md" ? { path, text: "n" } : undefined),
      }),
    });
    const out = (await tool.run({ skill: "status" }, context())) as string;
    expect(seen).toEqual([{ command: "git branch --show-current", rules: ["Bash(git branch:*)"] }]);
    expect(out).toContain("Branch: main\nSee notes.md");
    expect(out).toContain('<file path="notes.md">\nn\n</file>');
  });
});
