/** What tools may do without asking. Its own file so that the command line can name the modes without loading the checker. */
export const PERMISSION_MODES = ["default", "acceptEdits", "bypassPermissions", "plan"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Claude Code's modes mitsu has no equivalent for: each becomes `default`, which asks (never a mode that grants more). */
export const CLAUDE_ONLY_MODES = ["dontAsk", "auto"] as const;

/** A mode as Claude Code spells it, as mitsu's: its own four are themselves, `dontAsk` and `auto` are `default`. */
export function fromClaudeMode(mode: string): PermissionMode | undefined {
  if ((PERMISSION_MODES as readonly string[]).includes(mode)) return mode as PermissionMode;
  return (CLAUDE_ONLY_MODES as readonly string[]).includes(mode) ? "default" : undefined;
}
