import type { PermissionChecker, PermissionMode } from "../../permissions/index.js";
import { createExitPlanModeTool, type PlanDecision } from "../../tools/exit-plan-mode-tool.js";
import type { Questions } from "../asker.js";
import type { Capability } from "../capability.js";

export interface PlanModeDeps {
  questions: Questions;
  /** The agent's permission mode (the harness's record of it). */
  mode: { mode: PermissionMode };
  /** The permission checker, once made. */
  permissions: () => PermissionChecker | undefined;
}

const PLAN_REMINDER =
  "Plan mode is active: the user does not want changes yet. Research with read-only tools (Read, Grep, Glob, read-only Bash, the Explore and Plan agents); change nothing. When you have a plan, present it with the ExitPlanMode tool; the user approves it or tells you what to change.";

/**
 * Plan mode's approval: the `ExitPlanMode` tool, and a PreToolUse hook of the capability's own that asks the user
 * about the plan through the harness's Asker — as a `plan` question to an Asker that answers that kind, else as a
 * `permission` question for `ExitPlanMode` with input `{ plan }` (the terminal's dialog, the SDK's
 * `can_use_tool`): allow once → default mode, allow always → acceptEdits, deny → keep planning (a deny's
 * feedback is the call's result). With nobody to ask (print mode) the hook says nothing and the permission rules
 * decide, as in Claude Code: the call is denied (and listed in `permission_denials`) unless a rule allows
 * `ExitPlanMode` (then the mode becomes default). A reminder tells the model while it is in plan mode.
 */
export function planModeCapability(deps: PlanModeDeps): Capability {
  const { questions } = deps;
  const ask = async (
    plan: string,
    toolUseId: string,
    signal: AbortSignal,
  ): Promise<PlanDecision | undefined> => {
    if (questions.canAsk("plan")) return questions.ask({ kind: "plan", plan, signal });
    if (!questions.canAsk("permission")) return undefined;
    const answer = await questions.ask({
      kind: "permission",
      request: {
        toolName: "ExitPlanMode",
        input: { plan },
        toolUseId,
        display: "ExitPlanMode",
        // Never saved as a rule: each plan is approved on its own.
        suggestedRules: [],
        reason: "The agent presents its plan and asks to leave plan mode",
        signal,
      },
    });
    if (answer === "allow_once") return { approve: "default" };
    if (answer === "allow_always") return { approve: "acceptEdits" };
    // A program's detailed verdict (the Agent SDK's canUseTool result, on a harness that takes one): a deny's
    // message is the user's feedback.
    const verdict = answer as unknown as { behavior?: string; message?: unknown };
    if (typeof verdict === "object" && verdict !== null) {
      if (verdict.behavior === "allow") return { approve: "default" };
      return { refine: typeof verdict.message === "string" ? verdict.message : "" };
    }
    return { refine: "" };
  };
  const setMode = (mode: PermissionMode) => {
    const checker = deps.permissions();
    if (checker) checker.setMode(mode);
    else deps.mode.mode = mode;
  };
  // The checker's mode is the one in force (a front-end may have switched it to plan since the start).
  const inPlanMode = () => (deps.permissions()?.currentMode() ?? deps.mode.mode) === "plan";
  /** The calls the user approved, with the mode they chose. */
  const approved = new Map<string, "default" | "acceptEdits">();
  return {
    name: "plan-mode",
    tools: [createExitPlanModeTool({ inPlanMode, approved: (id) => approved.get(id), setMode }) as never],
    hooks: {
      PreToolUse: [
        {
          matcher: "^ExitPlanMode$",
          // A person reads the plan: no hook timeout worth the name.
          timeoutMs: 7 * 24 * 3600 * 1000,
          callback: async (input, { signal }) => {
            const plan = (input.tool_input as { plan?: unknown }).plan;
            if (!inPlanMode() || typeof plan !== "string") return undefined;
            const decision = await ask(plan, input.tool_use_id, signal);
            if (!decision) return undefined;
            if ("approve" in decision) {
              approved.set(input.tool_use_id, decision.approve);
              setMode(decision.approve);
              return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };
            }
            const feedback = decision.refine.trim();
            return {
              hookSpecificOutput: {
                hookEventName: "PreToolUse",
                permissionDecision: "deny",
                permissionDecisionReason: feedback
                  ? `The user did not approve the plan and said:\n${feedback}\nStay in plan mode: revise the plan, then present it again with ExitPlanMode.`
                  : "The user did not approve the plan. Stay in plan mode: change nothing; ask what to change, or refine the plan and present it again.",
              },
            };
          },
        },
      ],
    },
    reminders: [{ name: "plan-mode", collect: () => (inPlanMode() ? PLAN_REMINDER : undefined) }],
  };
}
