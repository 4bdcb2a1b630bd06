/** What tools may do without asking. Its own file so that the command line can name the modes without loading the checker. */
export const PERMISSION_MODES = ["default", "acceptEdits", "bypassPermissions", "plan"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
