import { type ToolState, toolStateKey } from "../loop/tool-state.js";
import type { Command, Skill } from "./skill.js";

/**
 * The active skills' `allowed-tools`, in `ToolContext.state`: from the skill (or command) name to its permission
 * rules, e.g. `Bash(git status:*)`. The permission checker reads them with `activeAllowedTools(state)`: a call
 * matching one of these rules is allowed without asking, but deny rules still win. A skill stays active for the
 * rest of the conversation (until `/clear` clears the tool state).
 */
export const ACTIVE_SKILLS = toolStateKey("active-skills", () => new Map<string, string[]>(), {
  save: (active) => [...active],
  load: (data, current) => {
    const active = current ?? new Map<string, string[]>();
    if (!Array.isArray(data)) return active;
    for (const entry of data) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || !Array.isArray(entry[1])) continue;
      const rules = (entry[1] as unknown[]).filter((rule): rule is string => typeof rule === "string");
      active.set(entry[0], rules);
    }
    return active;
  },
});

/** Marks a skill or command active: its `allowed-tools` become pre-approved for this conversation. */
export function activateSkill(state: ToolState, target: Skill | Command): void {
  if (!target.allowedTools || target.allowedTools.length === 0) return;
  state.get(ACTIVE_SKILLS).set(target.name, [...target.allowedTools]);
}

/** Ends a skill's pre-approval (all skills' when no name is given). */
export function deactivateSkill(state: ToolState, name?: string): void {
  const active = state.peek(ACTIVE_SKILLS);
  if (!active) return;
  if (name === undefined) active.clear();
  else active.delete(name);
}

/** The permission rules pre-approved by the active skills, deduplicated, in activation order. */
export function activeAllowedTools(state: ToolState): string[] {
  const active = state.peek(ACTIVE_SKILLS);
  if (!active) return [];
  const rules = new Set<string>();
  for (const list of active.values()) for (const rule of list) rules.add(rule);
  return [...rules];
}

/**
 * The ToolContext.state slot of the model that a skill the model loaded names (`model` in its frontmatter): the
 * turns after the Skill call use it, until the run ends (the caller clears it with `clearSkillModel`).
 */
export const SKILL_MODEL = toolStateKey<string | undefined>("skill-model", () => undefined);

/** Records the skill's `model` (if it names one other than `inherit`) for the rest of the run. */
export function requestSkillModel(state: ToolState, target: Skill | Command): void {
  const model = target.model?.trim();
  if (model && model !== "inherit") state.set(SKILL_MODEL, model);
}

/** The model a loaded skill asked for, if any. */
export function skillModel(state: ToolState): string | undefined {
  return state.peek(SKILL_MODEL);
}

export function clearSkillModel(state: ToolState): void {
  if (state.peek(SKILL_MODEL) !== undefined) state.set(SKILL_MODEL, undefined);
}
