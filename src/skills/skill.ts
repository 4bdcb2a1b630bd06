/**
 * Where a skill or command was found. On a name conflict project beats user beats builtin beats plugin (a
 * plugin's are namespaced `plugin:name`, so they rarely meet another).
 */
export type SkillSource = "project" | "user" | "builtin" | "plugin";

/**
 * A skill: a folder holding `SKILL.md` (Agent Skills format). Only `name` and `description` reach the model
 * up front (the skills list reminder); the body arrives when the model calls the Skill tool or the user types
 * `/name`; the folder's other files are only pointed to, never loaded.
 */
export interface Skill {
  kind: "skill";
  /** 1–64 characters of `[a-z0-9-]`, no leading, trailing or double hyphen; equal to the folder name. */
  name: string;
  /** 1–1024 characters, trimmed (folded `>` and literal `|` YAML are accepted). */
  description: string;
  /** Absolute path of the SKILL.md file. */
  path: string;
  /** Absolute path of the skill's folder (what "Base directory for this skill" shows). */
  dir: string;
  source: SkillSource;
  /** The plugin it comes from (its name is then `plugin:folder`). */
  plugin?: string;
  /** The markdown after the frontmatter, trimmed; line ends normalised to `\n`. */
  body: string;
  /** Other files in the folder, relative POSIX paths, sorted (capped; hidden files and node_modules left out). */
  files: string[];
  /** Permission rules pre-approved while the skill is active, e.g. `Bash(git status:*)`. */
  allowedTools?: string[];
  /** `disable-model-invocation: true` hides the skill from the model (list and Skill tool); `/name` still works. */
  disableModelInvocation: boolean;
  /** `user-invocable: false` hides the skill from `/` and `/help`; the model can still call it. */
  userInvocable: boolean;
  argumentHint?: string;
  /** `arguments:` in the frontmatter: the positional arguments' names, for `$name` in the body. */
  argumentNames?: string[];
  /** The model that answers while the skill runs: `/name` sends with it; loaded by the model, the rest of the run does. */
  model?: string;
  license?: string;
  compatibility?: string;
  /** The Agent Skills `metadata` mapping, as written. */
  metadata?: Record<string, unknown>;
  /** Frontmatter fields mitsu does not know, kept as parsed (other tools' extensions). */
  extra?: Record<string, unknown>;
}

/**
 * A command: a `*.md` file under a commands folder, invoked only by the user as `/name` (a subfolder gives a
 * namespace: `frontend/button.md` is `/frontend:button`). All frontmatter is optional.
 */
export interface Command {
  kind: "command";
  /** The slash name without the slash, namespaced with `:` (e.g. `frontend:button`). */
  name: string;
  /** From the frontmatter, else the body's first line (headings' `#` removed). */
  description?: string;
  argumentHint?: string;
  /** `arguments:` in the frontmatter: the positional arguments' names, for `$name` in the body. */
  argumentNames?: string[];
  allowedTools?: string[];
  model?: string;
  body: string;
  /** Absolute path of the `.md` file. */
  path: string;
  source: SkillSource;
  /** The plugin it comes from (its name is then `plugin:name`, as Claude Code namespaces a plugin's commands). */
  plugin?: string;
  extra?: Record<string, unknown>;
}

/**
 * A problem with one file. `skipped: true` means the file was not loaded (bad frontmatter, a shadowed name);
 * `false` is a notice about a file that did load (e.g. an unquoted value read as plain text).
 */
export interface SkillWarning {
  /** Absolute path of the file (or folder) concerned. */
  path: string;
  /** The frontmatter field at fault (`name`, `description`, …), or `frontmatter` / `file` / `SKILL.md`. */
  field: string;
  message: string;
  skipped: boolean;
}

/** One line a user can act on: `<path>: <field>: <message>`. */
export function formatSkillWarning(warning: SkillWarning, relativeTo?: (path: string) => string): string {
  const path = relativeTo ? relativeTo(warning.path) : warning.path;
  return `${path}: ${warning.field}: ${warning.message}${warning.skipped ? " (skipped)" : ""}`;
}
