import type { Command, Skill } from "../skills/skill.js";

/** A skill for tests, with the fields a discovered one has; override what a test is about. */
export function testSkill(name: string, overrides: Partial<Skill> = {}): Skill {
  return {
    kind: "skill",
    name,
    description: `The ${name} skill.`,
    path: `/skills/${name}/SKILL.md`,
    dir: `/skills/${name}`,
    source: "project",
    body: `Do ${name}.`,
    files: [],
    disableModelInvocation: false,
    userInvocable: true,
    ...overrides,
  };
}

/** A command for tests. */
export function testCommand(name: string, overrides: Partial<Command> = {}): Command {
  return {
    kind: "command",
    name,
    body: `Run ${name}.`,
    path: `/commands/${name}.md`,
    source: "project",
    ...overrides,
  };
}
