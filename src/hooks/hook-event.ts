import type { PermissionRuleValue, PermissionUpdate } from "../permissions/permission-update.js";
/** The hook events, as Claude Code names them in settings files. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SubagentStart",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "Notification",
  "Setup",
  "Elicitation",
  "ElicitationResult",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Events whose hooks are chosen by `matcher` against the tool name (the others ignore it). */
export const TOOL_EVENTS: ReadonlySet<HookEventName> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
]);

/**
 * A rule the permission question would add, in Claude Code's `permission_suggestions` form (a PermissionRequest
 * hook is told them; mitsu suggests only allow rules for the session's local settings).
 */
export interface PermissionSuggestion {
  type: "addRules";
  rules: PermissionRuleValue[];
  behavior: "allow";
  destination: "localSettings";
}

/** Fields every hook input carries (Claude Code's names, snake_case, as the hook reads them on stdin). */
export interface HookInputBase {
  session_id: string;
  /** The session file (JSONL), or "" when the session is not logged. */
  transcript_path: string;
  cwd: string;
  permission_mode: string;
}

/** What a hook is told, one shape per event; this is the JSON a command hook reads on stdin. */
export type HookInput = HookInputBase &
  (
    | {
        hook_event_name: "PreToolUse";
        tool_name: string;
        tool_input: Record<string, unknown>;
        tool_use_id: string;
      }
    | {
        hook_event_name: "PostToolUse";
        tool_name: string;
        tool_input: Record<string, unknown>;
        tool_use_id: string;
        tool_response: unknown;
      }
    | {
        /** A tool call that ended in an error (its result is `is_error`); `error` is what the model reads. */
        hook_event_name: "PostToolUseFailure";
        tool_name: string;
        tool_input: Record<string, unknown>;
        tool_use_id: string;
        error: string;
        /** Whether the call failed because the run was interrupted. */
        is_interrupt?: boolean;
      }
    | {
        /** The permission question is about to be put to the user (the rules neither allow nor deny the call). */
        hook_event_name: "PermissionRequest";
        tool_name: string;
        tool_input: Record<string, unknown>;
        permission_suggestions?: PermissionSuggestion[];
      }
    | { hook_event_name: "UserPromptSubmit"; prompt: string }
    | { hook_event_name: "Stop"; stop_hook_active: boolean }
    | { hook_event_name: "SubagentStop"; stop_hook_active: boolean }
    | { hook_event_name: "SubagentStart"; agent_id: string; agent_type: string }
    | { hook_event_name: "PreCompact"; trigger: "manual" | "auto"; custom_instructions: string }
    | { hook_event_name: "SessionStart"; source: "startup" | "resume" | "clear" | "compact" }
    | { hook_event_name: "SessionEnd"; reason: "clear" | "logout" | "prompt_input_exit" | "other" }
    | { hook_event_name: "Notification"; message: string }
    | { hook_event_name: "Setup"; trigger: "init" | "maintenance" }
    | {
        /** An MCP server asks the user for input; a hook may answer in the user's place (matched on the server). */
        hook_event_name: "Elicitation";
        mcp_server_name: string;
        message: string;
        mode: "form";
        requested_schema: Record<string, unknown>;
      }
    | {
        /** The answer about to go back to the server; a hook may change it (matched on the server). */
        hook_event_name: "ElicitationResult";
        mcp_server_name: string;
        mode: "form";
        action: "accept" | "decline" | "cancel";
        content?: Record<string, unknown>;
      }
  );

export type HookInputOf<E extends HookEventName> = Extract<HookInput, { hook_event_name: E }>;

/**
 * A hook's answer, as Claude Code defines its JSON output. A command hook prints it on stdout (exit 0); a
 * library callback returns it. Every field is optional: `{}` (or no output) changes nothing.
 */
export interface HookAnswer {
  /** false stops the agent after this hook (the run ends; `stopReason` is shown to the user). */
  continue?: boolean;
  stopReason?: string;
  /** Do not show this hook's stdout, even in verbose mode. */
  suppressOutput?: boolean;
  /** A notice for the user. */
  systemMessage?: string;
  /**
   * "block": PreToolUse denies the call (`reason` to the model); PostToolUse sends `reason` to the model;
   * UserPromptSubmit refuses the prompt (`reason` to the user); Stop/SubagentStop keep the agent going with
   * `reason` as its next instruction. "approve" (PreToolUse, older form) allows the call.
   */
  decision?: "block" | "approve";
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    /** PreToolUse: allow skips the permission question, deny is final (also in bypass mode), ask asks. */
    permissionDecision?: "allow" | "deny" | "ask";
    permissionDecisionReason?: string;
    /** PreToolUse: the input the tool runs with instead (checked against its schema again). */
    updatedInput?: Record<string, unknown>;
    /** UserPromptSubmit, SessionStart, PostToolUse, PostToolUseFailure: text added to what the model reads. */
    additionalContext?: string;
    /**
     * PermissionRequest: answers the question in the user's place. allow (with `updatedInput` to run with) or deny
     * (`message` to the model, `interrupt` stops the turn). Deny rules still win over an allow.
     */
    decision?: PermissionRequestDecision;
    /** Elicitation: the answer in the user's place; ElicitationResult: the answer sent instead. */
    action?: "accept" | "decline" | "cancel";
    content?: Record<string, unknown>;
  };
}

/** A PermissionRequest hook's answer (`hookSpecificOutput.decision`), as Claude Code defines it. */
export type PermissionRequestDecision =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[] }
  | { behavior: "deny"; message?: string; interrupt?: boolean };

/**
 * A hook as the library takes it: called with the event's input, returns an answer (or nothing). A throw is
 * a non-blocking error shown to the user; a hook never crashes the agent. `signal` aborts at its timeout.
 */
export type HookCallback<E extends HookEventName = HookEventName> = (
  input: HookInputOf<E>,
  context: { signal: AbortSignal },
) => HookAnswer | undefined | Promise<HookAnswer | undefined>;

/** Typed callbacks per event, for embedders (`CodingAgentOptions.hooks`); they run beside the settings' hooks. */
export type HookCallbacks = {
  [E in HookEventName]?: Array<{ matcher?: string; callback: HookCallback<E>; timeoutMs?: number }>;
};
