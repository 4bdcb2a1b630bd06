export {
  ACTIVE_SKILLS,
  activateSkill,
  activeAllowedTools,
  clearSkillModel,
  deactivateSkill,
  requestSkillModel,
  SKILL_MODEL,
  skillModel,
} from "./active-skills.js";
export type { DiscoverOptions, DiscoverResult } from "./discover-skills.js";
export { BUILTIN_SKILLS_DIR, discoverSkills } from "./discover-skills.js";
export {
  expandInvocation,
  findSlashTarget,
  parseSlash,
  skillHeader,
  splitArguments,
} from "./expand-command.js";
export type { InlineCapabilities, InlineRun } from "./expand-inline.js";
export { expandInline } from "./expand-inline.js";
export { formatSkillsReport, formatSlashHelp } from "./list-skills.js";
export type { FrontmatterResult } from "./parse-frontmatter.js";
export { normalizeText, parseFrontmatter } from "./parse-frontmatter.js";
export type { Command, Skill, SkillSource, SkillWarning } from "./skill.js";
export { formatSkillWarning } from "./skill.js";
export type { SkillToolInput, SkillToolOptions } from "./skill-tool.js";
export { createSkillTool } from "./skill-tool.js";
export type { SkillsReminderSource } from "./skills-reminder.js";
export { createSkillsReminder, estimateTokens, renderSkillsList } from "./skills-reminder.js";
