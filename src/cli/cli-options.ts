import type { PermissionMode } from "../permissions/index.js";

/** What the command line says, after parsing and checking. */
export interface CliOptions {
  prompt: string | undefined;
  print: boolean;
  model: string;
  maxTurns: number;
  maxTokens: number | undefined;
  outputFormat: "text" | "json" | "stream-json";
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
  resume: string | undefined;
  noSessionLog: boolean;
  verbose: boolean;
}

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export const DEFAULT_MODEL = "anthropic:claude-sonnet-5-5";

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
