import type { PermissionRequest, PermissionVerdict } from "../../permissions/index.js";
import { readPermissionUpdates, ruleValue } from "../../permissions/permission-update.js";
import type { ControlChannel } from "./control-channel.js";

/**
 * The question the permission rules leave open, asked of the app: a `can_use_tool` control request (the SDK
 * calls its `canUseTool`). Deny rules have denied and allow rules allowed before this is reached; the app's
 * `allow` (with `updatedInput`, and `updatedPermissions` applied by the checker as Claude Code applies them: rules
 * added, replaced or removed at their destination, the mode set, folders added or removed; a malformed entry is
 * left out) or `deny` (with `message`, `interrupt`) decides the rest. An app that fails to answer denies.
 */
export function createPermissionBridge(
  channel: ControlChannel,
  warn: (message: string) => void,
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
      const { updates, errors } = readPermissionUpdates(response.updatedPermissions);
      // The app meant something by them (a deny rule it thinks it added): it is told they were left out.
      for (const error of errors) warn(`canUseTool's answer: ${error}; that update was left out`);
      const input = response.updatedInput;
      return {
        behavior: "allow",
        ...(typeof input === "object" && input !== null && !Array.isArray(input)
          ? { updatedInput: input as Record<string, unknown> }
          : {}),
        ...(updates.length > 0 ? { updates } : {}),
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
  return {
    type: "addRules",
    rules: [ruleValue(rule)],
    behavior: "allow",
    destination: "session",
  };
}
