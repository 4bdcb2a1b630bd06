import { type HookRunner, hookedCanUseTool, withPermissionRequestHooks } from "../hooks/index.js";
import type { CanUseTool } from "../loop/permission.js";
import {
  createPermissionChecker,
  type PermissionChecker,
  type PermissionRequest,
} from "../permissions/index.js";
import { saveLocalAllowRules } from "../permissions/save-local-rules.js";
import { activeAllowedTools } from "../skills/index.js";
import type { Questions } from "./asker.js";
import type { PermissionDenial } from "./coding-agent.js";
import type { WorkspaceSetup } from "./workspace-setup.js";

export interface PermissionDeps {
  setup: WorkspaceSetup;
  questions: Questions;
  hooks: HookRunner;
  /** The command line's and the capabilities' rules (`--allowedTools`, `--disallowedTools`). */
  allowedTools: readonly string[];
  disallowedTools: readonly string[];
  sandboxAutoAllow: boolean;
  /** A hook's `continue: false`: the run stops after this call. */
  onHookStop: (reason: string) => void;
}

/** The permission checker, PreToolUse hooks before it, and every denial recorded. */
export interface PermissionSetup {
  permissions: PermissionChecker;
  canUseTool: CanUseTool;
  /** Every denial of this agent (a hook's too), in order (Claude Code's `permission_denials`). */
  denials: PermissionDenial[];
}

/**
 * Tool calls are decided by the PreToolUse hooks, then by the rules, and what neither decides is asked through the
 * harness's one question seam (a Notification hook hears of each question as it is shown; it does not hold it up).
 */
export function setUpPermissions(deps: PermissionDeps): PermissionSetup {
  const { setup, hooks } = deps;
  const asked = deps.questions.asFunction("permission", (request: PermissionRequest) => ({
    kind: "permission",
    request,
  }));
  const ask = asked
    ? async (request: PermissionRequest) => {
        void hooks.run("Notification", { message: `mitsu needs your permission to use ${request.toolName}` });
        const answer = await asked(request);
        // "Always" through the seam lasts beyond this session, as in Claude Code: the rules go to the project's
        // local settings, whichever front-end answered.
        const rules = request.suggestedRules;
        if (answer === "allow_always" && rules.length > 0 && deps.questions.answeredBySeam("permission")) {
          await saveLocalAllowRules(setup.cwd, rules, { home: setup.home }).then(
            (file) => deps.questions.notify(`saved ${rules.join(", ")} to ${file}`),
            (error: Error) => setup.warn(error.message),
          );
        }
        return answer;
      }
    : undefined;
  // PermissionRequest hooks answer first, in the user's place, where the checker would ask (deny rules won already).
  const checkerAsk = withPermissionRequestHooks(hooks, ask);
  const permissions = createPermissionChecker({
    rules: setup.settings.rules,
    mode: setup.permissionMode.mode,
    folders: setup.folders,
    ownFolders: [setup.memory],
    home: setup.home,
    preApproved: activeAllowedTools,
    allowedTools: [...deps.allowedTools],
    disallowedTools: [...deps.disallowedTools],
    cwd: setup.cwd,
    ...(checkerAsk ? { ask: checkerAsk } : {}),
    sandboxAutoAllow: deps.sandboxAutoAllow,
    onWarning: setup.warn,
  });
  const hookedCheck = hookedCanUseTool({
    runner: hooks,
    next: permissions,
    onStop: deps.onHookStop,
    ...(checkerAsk
      ? {
          // A PreToolUse hook's "ask" is a permission question too: PermissionRequest hooks answer it first.
          ask: async (toolName, input, reason, call) => {
            const answer = await checkerAsk({
              toolName,
              input,
              toolUseId: call.toolUseId,
              display: toolName,
              suggestedRules: [],
              reason,
              signal: call.signal,
            });
            if (typeof answer === "object") {
              if (answer.behavior === "deny" && answer.interrupt) return "stop";
              // The answer's permission updates (an SDK app's, a PermissionRequest hook's) hold as for any question.
              if (answer.behavior === "allow" && answer.updates?.length)
                await permissions.applyUpdates(answer.updates);
              if (answer.behavior === "allow" && answer.updatedInput) return { input: answer.updatedInput };
              return answer.behavior === "allow";
            }
            if (answer === "deny_and_stop") return "stop";
            return answer === "allow_once" || answer === "allow_always";
          },
        }
      : {}),
  });
  const denials: PermissionDenial[] = [];
  const canUseTool: CanUseTool = async (tool, input, ctx) => {
    const decision = await hookedCheck(tool, input, ctx);
    if (decision.behavior === "deny") {
      denials.push({ tool_name: tool.name, tool_use_id: ctx.toolUseId, tool_input: input });
    }
    return decision;
  };
  return { permissions, canUseTool, denials };
}
