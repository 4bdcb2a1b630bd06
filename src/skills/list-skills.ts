import { sep } from "node:path";
import { relativeInside } from "../fs/real-path.js";
import type { DiscoverResult } from "./discover-skills.js";
import type { Command, Skill } from "./skill.js";
import { formatSkillWarning } from "./skill.js";

/**
 * The text of `mitsu skills`: every skill and command found (name, where from, path, description), then each
 * skipped file and why, then notices. Paths inside `cwd` are shown relative to it.
 */
export function formatSkillsReport(result: DiscoverResult, options: { cwd?: string } = {}): string {
  const show = (path: string) => displayPath(path, options.cwd);
  const out: string[] = [];
  out.push(result.skills.length === 0 ? "Skills: none found" : `Skills (${result.skills.length}):`);
  for (const skill of result.skills) {
    const source = skill.plugin ? `plugin ${skill.plugin}` : skill.source;
    out.push(`  ${skill.name}  [${source}${skillFlags(skill)}]  ${show(skill.path)}`);
    out.push(`      ${oneLine(skill.description)}`);
  }
  out.push("");
  out.push(result.commands.length === 0 ? "Commands: none found" : `Commands (${result.commands.length}):`);
  for (const command of result.commands) {
    out.push(
      `  /${command.name}  [${command.plugin ? `plugin ${command.plugin}` : command.source}]  ${show(command.path)}`,
    );
    if (command.description) out.push(`      ${oneLine(command.description)}`);
  }
  const skipped = result.warnings.filter((w) => w.skipped);
  const notices = result.warnings.filter((w) => !w.skipped);
  if (skipped.length > 0) {
    out.push("", `Skipped (${skipped.length}):`);
    for (const warning of skipped) out.push(`  ${formatSkillWarning({ ...warning, skipped: false }, show)}`);
  }
  if (notices.length > 0) {
    out.push("", `Notices (${notices.length}):`);
    for (const warning of notices) out.push(`  ${formatSkillWarning(warning, show)}`);
  }
  const ignored = result.ignored ?? [];
  if (ignored.length > 0) {
    out.push(
      "",
      `Ignored, as this folder is not trusted (run mitsu with --trust, or answer yes at a terminal) (${ignored.length}):`,
    );
    for (const line of ignored) out.push(`  ${line}`);
  }
  out.push(
    "",
    "Searched: .mitsu/skills, .claude/skills, .agents/skills, .mitsu/commands, .claude/commands (project),",
    "~/.mitsu/skills, ~/.mitsu/commands, ~/.claude/skills, ~/.claude/commands (user), and the skills mitsu ships.",
  );
  return out.join("\n");
}

/**
 * The slash part of `/help`: each command and user-invocable skill as `/name <argument-hint>  description`,
 * sorted by name and aligned; descriptions are cut at 80 characters.
 */
export function formatSlashHelp(catalog: { skills: readonly Skill[]; commands: readonly Command[] }): string {
  const rows: Array<[string, string]> = [];
  for (const entry of [...catalog.skills.filter((s) => s.userInvocable), ...catalog.commands]) {
    const usage = `/${entry.name}${entry.argumentHint ? ` ${entry.argumentHint}` : ""}`;
    rows.push([usage, oneLine(entry.description ?? "", 80)]);
  }
  if (rows.length === 0) return "No slash commands or skills found (see `mitsu skills`).";
  rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const width = Math.min(32, Math.max(...rows.map(([usage]) => usage.length)));
  return rows.map(([usage, text]) => `  ${usage.padEnd(width)}  ${text}`.trimEnd()).join("\n");
}

function skillFlags(skill: Skill): string {
  const flags: string[] = [];
  if (skill.disableModelInvocation) flags.push("user only");
  if (!skill.userInvocable) flags.push("model only");
  return flags.map((flag) => `, ${flag}`).join("");
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function displayPath(path: string, cwd: string | undefined): string {
  if (cwd === undefined) return path;
  const rel = relativeInside(cwd, path);
  return rel === undefined || rel === "" ? path : rel.split(sep).join("/");
}
