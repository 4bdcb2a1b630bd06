import { describe, expect, it } from "vitest";
import { testSkill } from "../testing/test-skill.js";
import { createSkillsReminder, estimateTokens, renderSkillsList } from "./skills-reminder.js";

const many = (count: number, descriptionLength: number) =>
  Array.from({ length: count }, (_, i) =>
    testSkill(`skill-${String(i).padStart(3, "0")}`, {
      description: `${i} ${"word ".repeat(descriptionLength / 5)}`.trim(),
    }),
  );

describe("renderSkillsList", () => {
  it("lists the model's skills, project then user then shipped, each by name", () => {
    const text = renderSkillsList([
      testSkill("zeta", { source: "builtin" }),
      testSkill("beta", { source: "user" }),
      testSkill("alpha", { source: "builtin" }),
      testSkill("gamma", { source: "project", description: "Multi\n  line\ttext " }),
      testSkill("secret", { disableModelInvocation: true }),
      testSkill("helper", { userInvocable: false }),
    ]);
    expect(text.split("\n")).toEqual([
      "Available skills (call the Skill tool with the name when the user's request matches a description):",
      "- gamma: Multi line text",
      "- helper: The helper skill.",
      "- beta: The beta skill.",
      "- alpha: The alpha skill.",
      "- zeta: The zeta skill.",
    ]);
  });

  it("is empty when no skill is callable", () => {
    expect(renderSkillsList([])).toBe("");
    expect(renderSkillsList([testSkill("x", { disableModelInvocation: true })])).toBe("");
  });

  it("shortens every description alike before dropping any skill", () => {
    const skills = many(20, 400);
    const text = renderSkillsList(skills, 1500);
    expect(estimateTokens(text)).toBeLessThanOrEqual(1500);
    expect(estimateTokens(renderSkillsList(skills, 100_000))).toBeGreaterThan(1500);
    const lines = text.split("\n").slice(1);
    expect(lines).toHaveLength(20);
    for (const line of lines) expect(line).toMatch(/^- skill-\d{3}: \d+ word .*…$/);
    // The cap is the longest that fits: one more character on each of the 20 lines (5 tokens) would not.
    expect(estimateTokens(text)).toBeGreaterThan(1500 - 6);
  });

  it("drops entries from the end with a note when shortening is not enough", () => {
    const skills = many(200, 300);
    const text = renderSkillsList(skills, 1500);
    expect(estimateTokens(text)).toBeLessThanOrEqual(1500);
    const lines = text.split("\n");
    const listed = lines.filter((line) => line.startsWith("- "));
    expect(listed[0]).toMatch(/^- skill-000: /);
    expect(listed.length).toBeGreaterThan(10);
    expect(lines.at(-1)).toBe(
      `(+${200 - listed.length} more skills not listed for space; calling Skill with an unknown name lists them all)`,
    );
    // No room was left for one more entry.
    expect(estimateTokens(`${text}\n${listed[0]}`)).toBeGreaterThan(1500);
  });

  it("is the same text for the same skills (a stable reminder)", () => {
    const skills = many(50, 200);
    expect(renderSkillsList([...skills].reverse(), 800)).toBe(renderSkillsList(skills, 800));
  });
});

describe("createSkillsReminder", () => {
  it("is a reminder source named skills that reads the catalog each time", () => {
    const list = [testSkill("one")];
    const source = createSkillsReminder(() => list, { budgetTokens: 500 });
    expect(source.name).toBe("skills");
    expect(source.collect()).toContain("- one: The one skill.");
    list.length = 0;
    expect(source.collect()).toBeUndefined();
  });
});
