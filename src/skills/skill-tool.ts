import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import { activateSkill, requestSkillModel } from "./active-skills.js";
import { expandInvocation } from "./expand-command.js";
import { expandInline, type InlineCapabilities, type InlineRun } from "./expand-inline.js";
import type { Skill } from "./skill.js";

export interface SkillToolInput {
  skill: string;
  args?: string;
}

export interface SkillToolOptions {
  /** Replaces the model-facing description (keep it stable across turns: it is part of the cached prefix). */
  description?: string;
  /** Runs the body's `!`command`` and inlines its `@file` references (see `expandInline`); without it they stay as written. */
  inline?: (run: InlineRun) => InlineCapabilities;
}

const DESCRIPTION = `Load a skill: step-by-step instructions for a kind of task, written by the user, the project or mitsu.
The skills you can load are listed by name and description in a <system-reminder> ("Available skills").
When the user's request matches a skill's description, call this tool with that name first, then follow the
instructions it returns; they take precedence over your usual approach for that task.
- skill: the name exactly as listed (e.g. "commit"), without a slash.
- args: optional arguments for the skill, as the user would type them after /name.
The result is the skill's instructions and its folder's path; the folder may hold scripts and reference files,
listed by path: Read or run them only when the instructions call for them.
Do not call a skill that is already loaded in this conversation; follow the instructions you already have.
When the user types /name themselves, the skill is already expanded in their message: do not call it again.`;

/**
 * The `Skill` tool: the model loads a skill's body on demand (progressive disclosure). `catalog` is read at each
 * call, so skills found later (a reload) are callable without rebuilding the tool; its description never lists
 * skills, so the tools prefix stays byte-stable. Skills marked `disable-model-invocation` cannot be loaded.
 * Loading a skill pre-approves its `allowed-tools` for the run (see `ACTIVE_SKILLS`).
 */
export function createSkillTool(
  catalog: () => readonly Skill[],
  options: SkillToolOptions = {},
): Tool<SkillToolInput> {
  return {
    name: "Skill",
    description: options.description ?? DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: {
        skill: { type: "string", description: 'The skill name, exactly as listed (e.g. "commit").' },
        args: { type: "string", description: "Optional arguments for the skill." },
      },
      required: ["skill"],
      additionalProperties: false,
    },
    readOnly: true,
    permissionFacts: (input) => ({ display: input.skill }),
    summarize: (input) => `Skill ${input.skill}${input.args ? ` ${input.args}` : ""}`,
    async run(input, context) {
      const name = input.skill.trim().replace(/^\//, "");
      const skills = catalog();
      const callable = skills.filter((s) => !s.disableModelInvocation).map((s) => s.name);
      const available =
        callable.length > 0 ? `Available skills: ${callable.join(", ")}.` : "No skills are available.";
      const skill = skills.find((s) => s.name === name);
      if (skill === undefined) throw new ToolError(`Unknown skill "${name}". ${available}`);
      if (skill.disableModelInvocation) {
        throw new ToolError(
          `The skill "${name}" can only be run by the user, by typing /${name}; suggest that to them if it fits. ${available}`,
        );
      }
      activateSkill(context.state, skill);
      // Its `model` answers from the next turn on (see `RunAgentOptions.selectModel`).
      requestSkillModel(context.state, skill);
      const text = expandInvocation(skill, input.args ?? "");
      if (!options.inline) return text;
      return expandInline(
        text,
        options.inline({ signal: context.signal, state: context.state, agentPath: context.agentPath }),
      );
    },
  };
}
