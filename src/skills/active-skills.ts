import type { Command, Skill } from "./skill.js";

/**
 * The ToolContext.state key under which active skills' `allowed-tools` live: a `Map<string, string[]>` from the
 * skill (or command) name to its permission rules, e.g. `Bash(git status:*)`. The permission checker reads it
 * with `activeAllowedTools(state)`: a call matching one of these rules is allowed without asking, but deny rules
 * still win. A skill stays active for the rest of the run (the state is per run).
 */
export const SKILLS_ALLOWED_TOOLS_KEY = "skills.allowedTools";

/** Marks a skill or command active: its `allowed-tools` become pre-approved for this run. */
export function activateSkill(state: Map<string, unknown>, target: Skill | Command): void {
  if (!target.allowedTools || target.allowedTools.length === 0) return;
  const current = state.get(SKILLS_ALLOWED_TOOLS_KEY);
  const active = current instanceof Map ? (current as Map<string, string[]>) : new Map<string, string[]>();
  active.set(target.name, [...target.allowedTools]);
  state.set(SKILLS_ALLOWED_TOOLS_KEY, active);
}

/** Ends a skill's pre-approval (all skills' when no name is given). */
export function deactivateSkill(state: Map<string, unknown>, name?: string): void {
  const current = state.get(SKILLS_ALLOWED_TOOLS_KEY);
  if (!(current instanceof Map)) return;
  if (name === undefined) current.clear();
  else current.delete(name);
}

/** The permission rules pre-approved by the active skills, deduplicated, in activation order. */
export function activeAllowedTools(state: Map<string, unknown>): string[] {
  const current = state.get(SKILLS_ALLOWED_TOOLS_KEY);
  if (!(current instanceof Map)) return [];
  const rules = new Set<string>();
  for (const list of current.values()) {
    if (Array.isArray(list)) for (const rule of list) if (typeof rule === "string") rules.add(rule);
  }
  return [...rules];
}

/**
 * The ToolContext.state key of the model that a skill the model loaded names (`model` in its frontmatter): the
 * turns after the Skill call use it, until the run ends (the caller clears it with `clearSkillModel`).
 */
export const SKILLS_MODEL_KEY = "skills.model";

/** Records the skill's `model` (if it names one other than `inherit`) for the rest of the run. */
export function requestSkillModel(state: Map<string, unknown>, target: Skill | Command): void {
  const model = target.model?.trim();
  if (model && model !== "inherit") state.set(SKILLS_MODEL_KEY, model);
}

/** The model a loaded skill asked for, if any. */
export function skillModel(state: Map<string, unknown>): string | undefined {
  const model = state.get(SKILLS_MODEL_KEY);
  return typeof model === "string" ? model : undefined;
}

export function clearSkillModel(state: Map<string, unknown>): void {
  state.delete(SKILLS_MODEL_KEY);
}
