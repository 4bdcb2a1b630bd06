import type { PermissionFacts, Tool } from "../loop/tool.js";
import { createPermissionChecker } from "../permissions/permission-checker.js";

/** The call a hook's `if` is matched against: the tool (for what it states of its input), and the input. */
export interface HookCall {
  toolName: string;
  input: Record<string, unknown>;
  /** The tool itself; without it, `facts` (what the tool stated of the call) stand in for it. */
  tool?: Tool<never>;
  facts?: PermissionFacts;
}

/**
 * Claude Code's `if` on a hook: a permission rule (`Bash(git *)`, `Edit(src/**)`, `WebFetch(domain:x.com)`) the
 * call must match for the hook to run, matched exactly as a deny rule of that text would be (so `Bash(git *)`
 * matches each command of a compound line, `Edit(...)` the files the call writes). A rule that cannot be read
 * matches nothing (it was warned about at load).
 */
export function compileHookCondition(
  rule: string,
  where: { cwd: string; home: string },
): (call: HookCall) => Promise<boolean> {
  let checker: ReturnType<typeof createPermissionChecker> | undefined;
  try {
    checker = createPermissionChecker({ rules: { deny: [rule] }, mode: "bypassPermissions", ...where });
  } catch {
    checker = undefined;
  }
  return async (call) => {
    if (!checker) return false;
    const tool =
      call.tool ??
      ({ name: call.toolName, permissionFacts: () => call.facts ?? {} } as unknown as Tool<never>);
    try {
      return (await checker.denial(tool, call.input)) !== undefined;
    } catch {
      return false;
    }
  };
}
