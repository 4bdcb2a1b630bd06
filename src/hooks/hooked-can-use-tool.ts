import { type CanUseTool, type PermissionDecision, USER_REJECTED_MESSAGE } from "../loop/permission.js";
import type { Tool } from "../loop/tool.js";
import { validateInput } from "../loop/validate-input.js";
import type { PermissionChecker } from "../permissions/permission-checker.js";
import type { HookRunner } from "./create-hook-runner.js";

export interface HookedCanUseToolOptions {
  runner: HookRunner;
  /** The permission checker that decides when no hook does. */
  next: CanUseTool;
  /**
   * Asks the user when a hook answers "ask" (whatever the rules say); without it such a call is denied, as
   * print mode denies every question. `"stop"`: the user refused and stops the turn (a deny with `interrupt`).
   */
  ask?: (
    toolName: string,
    input: Record<string, unknown>,
    reason: string,
    context: { toolUseId: string; signal: AbortSignal },
  ) => Promise<boolean | "stop">;
  /**
   * Why the rules refuse a call whatever the user answers (deny rules, plan mode), asked before a hook's "ask"
   * is put to the user: deny wins over the hook's question. Default: `next.denial` when `next` is mitsu's
   * permission checker. Without either, a hook's "ask" is denied rather than put (no rules can be consulted).
   */
  denial?: (tool: Tool<never>, input: Record<string, unknown>) => Promise<string | undefined>;
  /** Called when a hook answers `continue: false` (the run is to stop after this call). */
  onStop?: (reason: string) => void;
}

/**
 * PreToolUse, between the tool's `check` and the permission checker: a deny (exit 2, `permissionDecision:
 * "deny"`, `decision: "block"`) is final — also in bypassPermissions mode, since the checker is never asked;
 * "allow" spares the question but not the deny and ask rules (the checker sees `hookAllowed`); "ask" asks the user
 * whatever the allow rules say, but a deny rule (or plan mode) refuses first; `updatedInput` replaces the input,
 * checked against the tool's schema again (a bad rewrite is the call's error) and handed on to the checker.
 */
export function hookedCanUseTool(options: HookedCanUseToolOptions): CanUseTool {
  const { runner, next } = options;
  const denial = options.denial ?? (next as Partial<Pick<PermissionChecker, "denial">>).denial;
  return async (tool, input, context): Promise<PermissionDecision> => {
    if (!runner.has("PreToolUse", tool.name)) return next(tool, input, context);
    const result = await runner.run(
      "PreToolUse",
      { tool_name: tool.name, tool_input: input, tool_use_id: context.toolUseId },
      { signal: context.signal },
    );
    if (result.stop !== undefined) options.onStop?.(result.stop);
    if (result.blocked !== undefined) {
      return { behavior: "deny", message: `Blocked by a PreToolUse hook: ${result.blocked}` };
    }
    let current = input;
    if (result.updatedInput) {
      const invalid = validateInput(tool, result.updatedInput);
      if (invalid) {
        return {
          behavior: "deny",
          message: `A PreToolUse hook rewrote the input into one that is not valid: ${invalid}`,
        };
      }
      current = result.updatedInput;
    }
    if (result.permission === "ask") {
      const reason = result.permissionReason || "a PreToolUse hook asks for your approval";
      if (!options.ask)
        return { behavior: "deny", message: `Not run: ${reason} (no one to ask in this mode).` };
      // Deny wins: the user's yes to the hook's question does not lift a deny rule (nor plan mode).
      if (!denial) {
        return {
          behavior: "deny",
          message: `Not run: ${reason}, and the permission rules cannot be consulted before asking.`,
        };
      }
      const refused = await denial(tool, current);
      if (refused !== undefined) return { behavior: "deny", message: refused };
      const yes = await options.ask(tool.name, current, reason, {
        toolUseId: context.toolUseId,
        signal: context.signal,
      });
      if (yes === "stop") return { behavior: "deny", message: USER_REJECTED_MESSAGE, interrupt: true };
      return yes
        ? { behavior: "allow", input: current }
        : { behavior: "deny", message: "The user denied this call." };
    }
    // "allow" spares the question, not the rules: the checker still applies deny and ask rules.
    const decision = await next(
      tool,
      current,
      result.permission === "allow" ? { ...context, hookAllowed: true } : context,
    );
    if (decision.behavior === "allow" && current !== input && !decision.input)
      return { behavior: "allow", input: current };
    return decision;
  };
}
