/**
 * The flags the Claude Agent SDK passes to the CLI it spawns (its `sdk.mjs` builds the argument list), beyond
 * the ones mitsu already had (`--model`, `--max-turns`, `--permission-mode`, `--allowedTools`, `--resume`, …).
 */
export interface SdkFlags {
  /** `--system-prompt`: replaces mitsu's system prompt (an empty text keeps mitsu's own). */
  systemPrompt?: string;
  /** `--json-schema`: the final answer is a `StructuredOutput` call whose input validates against it. */
  jsonSchema?: Record<string, unknown>;
  /** `--max-budget-usd`: the prompt stops once its cost passes this (`error_max_budget_usd`). */
  maxBudgetUsd?: number;
  /** `--include-partial-messages`: `stream_event` lines with the model's raw stream events. */
  includePartialMessages?: boolean;
  /** `--max-thinking-tokens` (0: off) and `--thinking=disabled`. */
  thinkingOff?: boolean;
  /** `--agents` JSON: `{ name: { description, prompt, tools?, model? } }`. */
  agents?: Record<string, SdkAgentDefinition>;
  /** `--permission-prompt-tool stdio`: questions go to the app as `can_use_tool` control requests. */
  permissionPromptStdio?: boolean;
  /** `--setting-sources user,project,local`: only these settings files are read. */
  settingSources?: SettingSource[];
  /** `--tools a,b`: only these built-in tools are offered (`default`: all). */
  tools?: string[];
  /** `--no-session-persistence`. */
  noSessionPersistence?: boolean;
  /** Accepted flags mitsu does not act on, for one notice on stderr. */
  ignored: string[];
}

export type SettingSource = "user" | "project" | "local";

/** An agent as the SDK's `agents` option gives it (Claude Code's AgentDefinition). */
export interface SdkAgentDefinition {
  description: string;
  prompt: string;
  tools?: string[];
  disallowedTools?: string[];
  model?: string;
}
