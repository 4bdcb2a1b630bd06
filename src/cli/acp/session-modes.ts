import type { SessionModeState } from "@agentclientprotocol/sdk";
import { PERMISSION_MODES, type PermissionMode } from "../../permissions/permission-mode.js";

const MODES: Record<PermissionMode, { name: string; description: string }> = {
  default: {
    name: "Default",
    description: "Read, Grep and Glob run; edits, commands and the rest ask first",
  },
  acceptEdits: { name: "Accept edits", description: "Edits inside the workspace run without asking" },
  bypassPermissions: {
    name: "Bypass permissions",
    description: "Everything runs without asking (deny rules hold)",
  },
  plan: { name: "Plan", description: "Only read-only tools: look around and plan, change nothing" },
};

/** mitsu's permission modes as ACP session modes, with the one in force. */
export function sessionModes(current: PermissionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODES[id] })),
  };
}

export function isPermissionMode(id: string): id is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(id);
}
