import type { PermissionRequest, PermissionVerdict } from "../../permissions/index.js";
import type { PermissionMode } from "../../permissions/permission-mode.js";
import type { ControlChannel } from "./control-channel.js";

/** One of the SDK's `PermissionUpdate`s (`updatedPermissions`), as far as mitsu reads it. */
interface PermissionUpdate {
  type?: unknown;
  rules?: Array<{ toolName?: unknown; ruleContent?: unknown }>;
  behavior?: unknown;
  mode?: unknown;
}

/**
 * The question the permission rules leave open, asked of the app: a `can_use_tool` control request (the SDK
 * calls its `canUseTool`). Deny rules have denied and allow rules allowed before this is reached; the app's
 * `allow` (with `updatedInput`, and `updatedPermissions` whose `addRules`/allow rules hold for the session and
 * whose `setMode` switches the mode) or `deny` (with `message`, `interrupt`) decides the rest. An app that fails
 * to answer denies.
 */
export function createPermissionBridge(
  channel: ControlChannel,
  onMode: (mode: PermissionMode) => void,
): (request: PermissionRequest) => Promise<PermissionVerdict> {
  return async (request) => {
    let response: Record<string, unknown>;
    try {
      response = await channel.request(
        {
          subtype: "can_use_tool",
          tool_name: request.toolName,
          input: request.input,
          tool_use_id: request.toolUseId,
          permission_suggestions: request.suggestedRules.map((rule) => suggestion(rule)),
          decision_reason: request.reason,
          ...(request.agentPath && request.agentPath.length > 0
            ? { agent_id: request.agentPath.join("/") }
            : {}),
        },
        request.signal,
      );
    } catch (error) {
      return {
        behavior: "deny",
        message: `Permission was not given: ${(error as Error).message}`,
      };
    }
    if (response.behavior === "allow") {
      const updates = Array.isArray(response.updatedPermissions)
        ? (response.updatedPermissions as PermissionUpdate[])
        : [];
      const rules: string[] = [];
      for (const update of updates) {
        if (update.type === "setMode" && typeof update.mode === "string")
          onMode(update.mode as PermissionMode);
        if (update.type === "addRules" && update.behavior === "allow") {
          for (const rule of update.rules ?? []) {
            if (typeof rule.toolName !== "string") continue;
            rules.push(
              typeof rule.ruleContent === "string" ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName,
            );
          }
        }
      }
      const input = response.updatedInput;
      return {
        behavior: "allow",
        ...(typeof input === "object" && input !== null && !Array.isArray(input)
          ? { updatedInput: input as Record<string, unknown> }
          : {}),
        ...(rules.length > 0 ? { rules } : {}),
      };
    }
    return {
      behavior: "deny",
      message: typeof response.message === "string" ? response.message : "",
      ...(response.interrupt === true ? { interrupt: true } : {}),
    };
  };
}

/** A rule mitsu would add for "always" (`Bash(npm test:*)`), as the SDK's `PermissionUpdate`. */
function suggestion(rule: string) {
  const match = /^([^(]+)(?:\((.*)\))?$/s.exec(rule);
  const toolName = match?.[1] ?? rule;
  const ruleContent = match?.[2];
  return {
    type: "addRules",
    rules: [{ toolName, ...(ruleContent !== undefined ? { ruleContent } : {}) }],
    behavior: "allow",
    destination: "session",
  };
}
