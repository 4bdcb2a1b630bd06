import type { PermissionMode } from "../permissions/permission-mode.js";
import type { SdkFlags } from "./sdk-flags.js";

/** What the command line says, after parsing and checking. */
export interface CliOptions {
  prompt: string | undefined;
  print: boolean;
  /** Undefined: the harness's default (`MITSU_MODEL`, `ANTHROPIC_MODEL`, the settings' `model`). */
  model: string | undefined;
  maxTurns: number;
  maxTokens: number | undefined;
  /** `json` and `stream-json` in Claude Code's shapes; `mitsu-events` is mitsu's own event stream. */
  outputFormat: OutputFormat;
  /** `stream-json`: user messages arrive as JSON lines on stdin (Claude Code's input format). */
  inputFormat: "text" | "stream-json";
  /** `--permission-mode`, only when given (settings' `defaultMode` applies otherwise). */
  permissionMode: PermissionMode | undefined;
  /** `--trust`: the project's own files may grant permissions in this run. */
  trust: boolean;
  allowedTools: string[];
  disallowedTools: string[];
  addDirs: string[];
  dumpRequests: string | undefined;
  toolProtocol: "native" | "xml";
  appendSystemPrompt: string | undefined;
  /** Prompt-cache lifetime of the breakpoints (Anthropic): 5 minutes (default) or 1 hour. */
  cacheTtl: "5m" | "1h";
  continueSession: boolean;
  /** `-r <id or file>`; `-r` alone sets `pickSession` instead. */
  resume: string | undefined;
  /** `-r` with no argument: list this folder's sessions and continue the one the user picks. */
  pickSession?: boolean;
  /** `--fork-session`: continue the resumed session in a new file, leaving the old one untouched. */
  forkSession?: boolean;
  noSessionLog: boolean;
  /** `--thinking [budget]`: extended thinking with this budget (tokens). */
  thinkingBudget?: number;
  /** `--hide-thinking`: show a one-line marker instead of the thinking text. */
  hideThinking?: boolean;
  verbose: boolean;
  /** `--mcp-config` values: MCP configuration files (or inline JSON), in order. */
  mcpConfig: string[];
  /** `--strict-mcp-config`: only the `--mcp-config` servers. */
  strictMcpConfig: boolean;
  /** `--sandbox`: run Bash commands inside the bubblewrap sandbox. */
  sandbox: boolean;
  /** The Claude Agent SDK's flags (`--system-prompt`, `--json-schema`, `--max-budget-usd`, …); see `SdkFlags`. */
  sdk?: SdkFlags;
  /** `--init` / `--init-only` (`init`), `--maintenance`: the Setup hooks' trigger. */
  setupTrigger?: "init" | "maintenance";
  /** `--init-only`: run the Setup hooks and exit, without a session. */
  initOnly?: boolean;
  /** `--plugin-dir` values: plugin folders loaded for this run. */
  pluginDirs?: string[];
}

export const OUTPUT_FORMATS = ["text", "json", "stream-json", "mitsu-events"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const INPUT_FORMATS = ["text", "stream-json"] as const;
/** The thinking budget of `--thinking` and `/thinking` without a number. */
export const DEFAULT_THINKING_BUDGET = 8000;

/**
 * The shape of a permission rule as written after `--allowedTools`: a tool name (capitalised, as every tool's is,
 * or `mcp__server__tool`) with an optional `(specifier)`. A word of another shape ends the rules: it is the prompt.
 */
export function looksLikeToolRule(word: string): boolean {
  return /^([A-Z][A-Za-z0-9_]*|mcp__(\*|[A-Za-z0-9_-]+(__[A-Za-z0-9_*-]+)?))(\(.*\))?$/s.test(word);
}

/** `--allowedTools "Read,Bash(git log:*)" Edit` → ["Read", "Bash(git log:*)", "Edit"]: commas and spaces split, but not inside parentheses. */
export function splitToolRules(values: readonly string[]): string[] {
  const rules: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (const ch of value) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if ((ch === "," || ch === " ") && depth === 0) {
        if (current.trim()) rules.push(current.trim());
        current = "";
      } else {
        current += ch;
      }
    }
    if (current.trim()) rules.push(current.trim());
  }
  return rules;
}
