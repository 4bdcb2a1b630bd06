import { type Command, InvalidArgumentError } from "commander";
import {
  CLAUDE_ONLY_MODES,
  fromClaudeMode,
  PERMISSION_MODES,
  type PermissionMode,
} from "../../permissions/permission-mode.js";
import type { PrintIo } from "../cli-io.js";

/** What a command's registration needs: the program, the streams, and where its action puts the exit code. */
export interface CommandContext {
  program: Command;
  io: PrintIo;
  exitCode: number;
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

/** A repeatable option's values; no default is declared, so `--help` does not print "(default: [])". */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export const MODEL_HELP =
  "the model, e.g. anthropic:claude-sonnet-5-5, openai:gpt-5, gemini:gemini-2.5-pro (default: MITSU_MODEL, ANTHROPIC_MODEL, the settings' model, anthropic:claude-sonnet-5-5)";

/** What `--permission-mode` takes: mitsu's modes and Claude Code's own (which `claudeMode` maps). */
export const PERMISSION_MODE_CHOICES: readonly string[] = [...PERMISSION_MODES, ...CLAUDE_ONLY_MODES];

/** `--permission-mode` as Claude Code's scripts pass it: `dontAsk` and `auto` become `default`, with a notice. */
export function claudeMode(mode: string | undefined, io: PrintIo): PermissionMode | undefined {
  if (mode === undefined) return undefined;
  const mapped = fromClaudeMode(mode);
  if (mapped !== mode) {
    io.stderr.write(
      `mitsu: --permission-mode ${mode} is Claude Code's; mitsu has no such mode and uses ${mapped}\n`,
    );
  }
  return mapped;
}
