/**
 * Where an agent definition comes from. On a name conflict project beats user beats built-in beats plugin (a
 * plugin's agents are named `plugin:agent`, as in Claude Code).
 */
export type AgentSource = "project" | "user" | "builtin" | "plugin";

/**
 * A kind of sub-agent the Task tool can start: its own system prompt, its own subset of the parent's tools and
 * its own model. Files use Claude Code's format (`.claude/agents/*.md`), so existing ones work unchanged.
 */
export interface AgentDefinition {
  /** What the model writes as `subagent_type`. */
  name: string;
  /** When to use it, written for the model: it goes into the Task tool's description. */
  description: string;
  /** The body of the file: the start of the sub-agent's system prompt (the environment section follows). */
  prompt: string;
  /**
   * The parent's tools it may use, by name; absent: all of them (but `Task`, unless nesting is configured).
   * A name the parent does not have is left out at run time.
   */
  tools?: string[];
  /** Taken away from the inherited tools when `tools` is absent (Claude Code's `disallowedTools`). */
  disallowedTools?: string[];
  /**
   * `inherit` or absent: the parent's model; `haiku` / `sonnet` / `opus`: that model of the parent's provider
   * family (`MODEL_ALIASES`); otherwise a `provider:model` spec, resolved through the model registry.
   */
  model?: string;
  /** Only looks: plan mode's rule holds for its calls (the built-in Explore). */
  readOnly?: boolean;
  /** Where it was found; absent for a definition made in code (`CodingAgentOptions.agents`). */
  source?: AgentSource;
  /** The file it was read from; absent for built-ins and definitions made in code. */
  path?: string;
  /** The plugin it comes from. */
  plugin?: string;
}

/** A file that was skipped (`skipped: true`) or a notice about one that loaded (a shadowed definition). */
export interface AgentWarning {
  path: string;
  /** The frontmatter field at fault, or `frontmatter` / `file` / `name`. */
  field: string;
  message: string;
  skipped: boolean;
}

/** One line a user can act on: `<path>: <field>: <message>`. */
export function formatAgentWarning(warning: AgentWarning, relativeTo?: (path: string) => string): string {
  const path = relativeTo ? relativeTo(warning.path) : warning.path;
  return `${path}: ${warning.field}: ${warning.message}${warning.skipped ? " (skipped)" : ""}`;
}
