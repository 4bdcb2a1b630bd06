import type {
  PermissionAnswer,
  PermissionRequest,
  PermissionVerdict,
} from "../permissions/permission-checker.js";
import { ruleValue } from "../permissions/permission-update.js";
import type { HookRunner } from "./create-hook-runner.js";
import type { PermissionSuggestion } from "./hook-event.js";

type Ask = (request: PermissionRequest) => Promise<PermissionAnswer | PermissionVerdict>;

/** `Bash(npm test:*)` as Claude Code's `permission_suggestions` entry. */
function suggestionsOf(rules: readonly string[]): PermissionSuggestion[] {
  if (rules.length === 0) return [];
  return [
    {
      type: "addRules",
      rules: rules.map(ruleValue),
      behavior: "allow",
      destination: "localSettings",
    },
  ];
}

/**
 * The permission question with Claude Code's PermissionRequest hooks before it: the checker calls this only when it
 * would ask (a deny rule, or plan mode, has refused already, so a hook's allow never lifts one). A hook's
 * `hookSpecificOutput.decision` answers in the user's place: allow (its `updatedInput` is checked by the deny rules
 * and the tool's schema again, as any approval's rewrite is) or deny (`message` to the model, `interrupt` stops the
 * turn); exit 2 denies with its stderr. No decision: the question is put as before; with no one to ask (print
 * mode) the call is denied. Undefined when there is neither a hook nor anyone to ask.
 */
export function withPermissionRequestHooks(runner: HookRunner, ask: Ask | undefined): Ask | undefined {
  if (!runner.listens("PermissionRequest")) return ask;
  return async (request) => {
    if (runner.has("PermissionRequest", request.toolName)) {
      const result = await runner.run(
        "PermissionRequest",
        {
          tool_name: request.toolName,
          tool_input: request.input,
          permission_suggestions: suggestionsOf(request.suggestedRules),
        },
        { ...(request.signal ? { signal: request.signal } : {}), call: { facts: request.facts ?? {} } },
      );
      const decision = result.decision;
      if (decision?.behavior === "deny") {
        return {
          behavior: "deny",
          message: `Denied by a PermissionRequest hook${decision.message ? `: ${decision.message}` : "."}`,
          ...(decision.interrupt ? { interrupt: true } : {}),
        };
      }
      // Its `updatedPermissions` are applied by the checker, as an app's `canUseTool` answer's are.
      if (decision?.behavior === "allow")
        return {
          behavior: "allow",
          ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}),
          ...(decision.updatedPermissions ? { updates: decision.updatedPermissions } : {}),
        };
    }
    if (ask) return ask(request);
    const rules = request.suggestedRules.map((rule) => JSON.stringify(rule)).join(", ");
    return {
      behavior: "deny",
      message:
        `Permission to use ${request.display} was denied: mitsu is running without a terminal to ask, and no ` +
        `PermissionRequest hook allowed it (${request.reason}).` +
        (rules ? ` To allow it, add ${rules} to permissions.allow in .mitsu/settings.json.` : ""),
    };
  };
}
