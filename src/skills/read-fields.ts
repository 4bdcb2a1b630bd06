import type { Command, Skill, SkillSource } from "./skill.js";

/** A field that failed validation: the file is skipped with a warning naming it. */
export interface FieldError {
  field: string;
  message: string;
}

const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SKILL_FIELDS = new Set([
  "name",
  "description",
  "allowed-tools",
  "disable-model-invocation",
  "user-invocable",
  "argument-hint",
  "arguments",
  "model",
  "license",
  "compatibility",
  "metadata",
]);
const COMMAND_FIELDS = new Set(["description", "argument-hint", "arguments", "allowed-tools", "model"]);

/** Checks a skill name against the Agent Skills rules; returns why it fails, or undefined. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length === 0) return "must not be empty";
  if (name.length > 64) return `must be at most 64 characters (has ${name.length})`;
  if (!SKILL_NAME.test(name)) {
    return `"${name}" must use only lowercase letters, digits and single hyphens, not at the start or end`;
  }
  return undefined;
}

/**
 * Builds a Skill from parsed frontmatter, or names the first field that is malformed. As in Claude Code, the skill
 * is invoked by its folder's name: a `name` that differs from it, or breaks the Agent Skills rules (lowercase,
 * digits, single hyphens), and a description over 1,024 characters are `notices`, not reasons to skip; a missing
 * `name` is the folder's, a missing `description` the body's first line.
 */
export function readSkill(
  data: Record<string, unknown>,
  at: { body: string; path: string; dir: string; folder: string; source: SkillSource; files: string[] },
  notices: FieldError[] = [],
): Skill | FieldError {
  const written = data.name;
  const name = at.folder;
  if (written !== undefined && written !== null) {
    const text = typeof written === "string" ? written : String(written);
    if (text !== name) {
      notices.push({ field: "name", message: `"${text}" differs from the folder name; invoked as /${name}` });
    }
  }
  const nameProblem = skillNameProblem(name);
  if (nameProblem) notices.push({ field: "name", message: `the folder name ${nameProblem}` });
  let description = readText(data, "description", {});
  if (isError(description)) return description;
  if (description === undefined) {
    description = firstLine(at.body);
    if (description === undefined)
      return { field: "description", message: "is required (the body is empty too)" };
    notices.push({ field: "description", message: "is missing; the body's first line is used" });
  } else if (description.length > 1024) {
    notices.push({
      field: "description",
      message: `is ${description.length} characters, more than the 1,024 of the Agent Skills format`,
    });
  }

  const skill: Skill = {
    kind: "skill",
    name,
    description: description!,
    path: at.path,
    dir: at.dir,
    source: at.source,
    body: at.body,
    files: at.files,
    disableModelInvocation: false,
    userInvocable: true,
  };
  const disable = readBoolean(data, "disable-model-invocation");
  if (isError(disable)) return disable;
  if (disable !== undefined) skill.disableModelInvocation = disable;
  const invocable = readBoolean(data, "user-invocable");
  if (isError(invocable)) return invocable;
  if (invocable !== undefined) skill.userInvocable = invocable;

  const common = readCommon(data);
  if (isError(common)) return common;
  Object.assign(skill, common);
  for (const key of ["license", "compatibility"] as const) {
    const value = readText(data, key, { max: key === "compatibility" ? 500 : undefined });
    if (isError(value)) return value;
    if (value !== undefined) skill[key] = value;
  }
  const metadata = data.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata !== "object" || Array.isArray(metadata)) {
      return { field: "metadata", message: `must be a mapping of \`key: value\`, got ${describe(metadata)}` };
    }
    skill.metadata = metadata as Record<string, unknown>;
  }
  const extra = unknownFields(data, SKILL_FIELDS);
  if (extra) skill.extra = extra;
  return skill;
}

/** Builds a Command from parsed frontmatter (all fields optional), or names the malformed field. */
export function readCommand(
  data: Record<string, unknown>,
  at: { name: string; body: string; path: string; source: SkillSource },
): Command | FieldError {
  const command: Command = {
    kind: "command",
    name: at.name,
    body: at.body,
    path: at.path,
    source: at.source,
  };
  const description = readText(data, "description", { max: 1024 });
  if (isError(description)) return description;
  const summary = description ?? firstLine(at.body);
  if (summary) command.description = summary;
  const common = readCommon(data);
  if (isError(common)) return common;
  Object.assign(command, common);
  const extra = unknownFields(data, COMMAND_FIELDS);
  if (extra) command.extra = extra;
  return command;
}

export function isError(value: unknown): value is FieldError {
  return typeof value === "object" && value !== null && "field" in value && "message" in value;
}

type Common = { allowedTools?: string[]; argumentHint?: string; argumentNames?: string[]; model?: string };

function readCommon(data: Record<string, unknown>): Common | FieldError {
  const out: Common = {};
  const tools = readToolList(data["allowed-tools"]);
  if (isError(tools)) return tools;
  if (tools !== undefined) out.allowedTools = tools;
  const hint = data["argument-hint"];
  if (Array.isArray(hint) && hint.every((part) => typeof part === "string" || typeof part === "number")) {
    // `argument-hint: [message]` is a YAML list; Claude Code's docs write it that way and mean the text.
    out.argumentHint = hint.map((part) => `[${part}]`).join(" ");
  } else {
    const text = readText(data, "argument-hint", {});
    if (isError(text)) return text;
    if (text !== undefined) out.argumentHint = text;
  }
  const model = readText(data, "model", {});
  if (isError(model)) return model;
  if (model !== undefined) out.model = model;
  const names = data.arguments;
  if (names !== undefined && names !== null) {
    const list = Array.isArray(names) ? names.map(String) : String(names).split(/[\s,]+/);
    const valid = list.filter((n) => /^[A-Za-z_]\w*$/.test(n));
    if (valid.length > 0) out.argumentNames = valid;
  }
  return out;
}

function readText(
  data: Record<string, unknown>,
  field: string,
  rule: { required?: boolean; max?: number | undefined },
): string | undefined | FieldError {
  const value = data[field];
  if (value === undefined || value === null) {
    return rule.required ? { field, message: "is required" } : undefined;
  }
  // A bare number or boolean (`model: 4`, `license: 2.0`) is text the author did not quote.
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    return { field, message: `must be text, got ${describe(value)}` };
  }
  const text = String(value).trim();
  if (text.length === 0) return rule.required ? { field, message: "must not be empty" } : undefined;
  if (rule.max !== undefined && text.length > rule.max) {
    return { field, message: `must be at most ${rule.max} characters (has ${text.length})` };
  }
  return text;
}

function readBoolean(data: Record<string, unknown>, field: string): boolean | undefined | FieldError {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === "true";
  return { field, message: `must be true or false, got ${describe(value)}` };
}

/** `allowed-tools` as a YAML list, or one string separated by spaces or commas outside parentheses. */
function readToolList(value: unknown): string[] | undefined | FieldError {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const tools: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") {
      return { field: "allowed-tools", message: `must be a list of tool rules, got ${describe(item)}` };
    }
    tools.push(...splitToolList(item));
  }
  return tools;
}

/** Splits `Bash(git add:*), Read Grep` into rules; spaces inside parentheses belong to the rule. */
export function splitToolList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current) out.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current) out.push(current);
  return out;
}

function unknownFields(
  data: Record<string, unknown>,
  known: Set<string>,
): Record<string, unknown> | undefined {
  const entries = Object.entries(data).filter(([key]) => !known.has(key));
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function firstLine(body: string): string | undefined {
  const line = body
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find((l) => l.length > 0);
  if (line === undefined) return undefined;
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "nothing";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}
