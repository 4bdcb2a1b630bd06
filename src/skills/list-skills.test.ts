import { describe, expect, it } from "vitest";
import { testCommand, testSkill } from "../testing/test-skill.js";
import { formatSkillsReport, formatSlashHelp } from "./list-skills.js";

describe("formatSkillsReport", () => {
  it("shows each skill and command with its source and path, then skipped files and notices", () => {
    const text = formatSkillsReport(
      {
        skills: [
          testSkill("deploy", { path: "/p/.mitsu/skills/deploy/SKILL.md", disableModelInvocation: true }),
          testSkill("commit", { path: "/pkg/skills/commit/SKILL.md", source: "builtin" }),
        ],
        commands: [
          testCommand("ns:build", { path: "/p/.claude/commands/ns/build.md", description: "Build it" }),
        ],
        warnings: [
          { path: "/p/.mitsu/skills/bad/SKILL.md", field: "name", message: "is required", skipped: true },
          {
            path: "/p/.mitsu/skills/ok/SKILL.md",
            field: "description",
            message: "read as text",
            skipped: false,
          },
        ],
      },
      { cwd: "/p" },
    );
    expect(text).toContain(
      "Skills (2):\n  deploy  [project, user only]  .mitsu/skills/deploy/SKILL.md\n      The deploy skill.",
    );
    expect(text).toContain("  commit  [builtin]  /pkg/skills/commit/SKILL.md");
    expect(text).toContain(
      "Commands (1):\n  /ns:build  [project]  .claude/commands/ns/build.md\n      Build it",
    );
    expect(text).toContain("Skipped (1):\n  .mitsu/skills/bad/SKILL.md: name: is required");
    expect(text).toContain("Notices (1):\n  .mitsu/skills/ok/SKILL.md: description: read as text");
  });

  it("says when nothing was found", () => {
    const text = formatSkillsReport({ skills: [], commands: [], warnings: [] });
    expect(text).toMatch(/^Skills: none found\n\nCommands: none found\n/);
    expect(text).not.toContain("Skipped");
  });
});

describe("formatSlashHelp", () => {
  it("lists user-invocable skills and commands with their argument hints, sorted", () => {
    const text = formatSlashHelp({
      skills: [
        testSkill("review", { argumentHint: "[base]", description: "Review the diff" }),
        testSkill("hidden", { userInvocable: false }),
      ],
      commands: [testCommand("deploy", { description: "Deploy it" }), testCommand("bare")],
    });
    expect(text.split("\n")).toEqual([
      "  /bare",
      "  /deploy         Deploy it",
      "  /review [base]  Review the diff",
    ]);
  });

  it("says when there is nothing to list", () => {
    expect(formatSlashHelp({ skills: [], commands: [] })).toMatch(/^No slash commands/);
  });
});
