import {
  approveHooksFile,
  type CommandHook,
  createHookRunner,
  type HookCallbacks,
  type HookJudge,
  type HookNotice,
  type HookRunner,
  loadHooks,
  type UnapprovedHooksFile,
} from "../../hooks/index.js";
import type { PermissionMode } from "../../permissions/index.js";
import { completeText } from "../../providers/complete-text.js";
import type { Questions } from "../asker.js";
import { hookModel } from "../hook-agent.js";
import type { ModelSetup } from "../model-setup.js";
import type { WorkspaceSetup } from "../workspace-setup.js";

/** The settings' command hooks that run, and the project files whose hooks do not. */
export interface ActiveHooks {
  hooks: CommandHook[];
  skipped: UnapprovedHooksFile[];
}

/**
 * The user's hooks run; a project file's only in a trusted folder (one trust model: see loadWorkspace), and there
 * only as approved. A yes to the trust question, which listed them, approves them as they are now; `--trust` runs
 * them for this run; a folder trusted earlier whose hooks changed since is asked about again. An untrusted
 * folder's were read already, for the trust question.
 */
export async function loadActiveHooks(setup: WorkspaceSetup, questions: Questions): Promise<ActiveHooks> {
  const { trusted, trustedBy, warn } = setup;
  const loaded =
    setup.workspaceHooks ?? (await loadHooks({ ...setup.where, trusted, files: setup.settings.hookFiles }));
  for (const warning of loaded.warnings) warn(warning);
  const hooks = [...loaded.hooks];
  const skipped: UnapprovedHooksFile[] = [];
  for (const file of loaded.unapproved) {
    if (!trusted) {
      skipped.push(file);
    } else if (trustedBy === "--trust") {
      hooks.push(...file.hooks);
    } else if (
      trustedBy === "answered yes" ||
      (questions.canAsk("hooks") && (await questions.ask({ kind: "hooks", file })))
    ) {
      await approveHooksFile(setup.home, file.file, file.sha256);
      hooks.push(...file.hooks);
    } else {
      skipped.push(file);
    }
  }
  // An untrusted folder's hooks were named already, by the workspace notice that came with `workspaceHooks`.
  if (skipped.length > 0 && (trusted || setup.workspaceHooks === undefined)) {
    const why = trusted
      ? "their project settings file is not approved; run mitsu interactively there to approve"
      : "this folder is not trusted; run mitsu interactively there and trust it, or pass --trust";
    warn(
      `hooks not run (${why}):\n${skipped
        .flatMap((f) =>
          f.hooks.map((h) => `  - ${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${h.command} (${f.file})`),
        )
        .join("\n")}`,
    );
  }
  return { hooks, skipped };
}

/** Where a hook's notices go: raised during a prompt, they become `warning` events between the run's events. */
export class HookNotices {
  readonly pending: HookNotice[] = [];
  inPrompt = false;
  constructor(
    private readonly warn: (message: string) => void,
    private readonly verbose: boolean,
  ) {}
  notify(notice: HookNotice): void {
    if (notice.kind === "output" && !this.verbose) return;
    if (this.inPrompt) this.pending.push(notice);
    else this.warn(notice.message);
  }
  /** Ends a prompt: what it did not yield goes to the warnings. */
  flush(): void {
    for (const notice of this.pending.splice(0)) this.warn(notice.message);
  }
}

export interface HookRunnerDeps {
  setup: WorkspaceSetup;
  hooks: readonly CommandHook[];
  callbacks: HookCallbacks;
  notices: HookNotices;
  /** The mode now: a terminal's cycling or the SDK's set_permission_mode changes it. */
  permissionMode: () => PermissionMode;
  /** The session's id and file now (hooks are told them as Claude Code tells its hooks). */
  session: () => { id: string; path: string };
  /** The model call of `prompt` hooks (see `hookJudge`). */
  judge: HookJudge;
  /** The sub-agent of `agent` hooks (see `hookAgent`). */
  agentJudge: HookJudge;
}

/** A `prompt` hook's judge: one model call, on the hook's model (see `hookModel`). */
export function hookJudge(models: ModelSetup): HookJudge {
  return (prompt, { model, signal }) => {
    const chosen = hookModel(models, model);
    return completeText(chosen.provider, chosen.model, prompt, { signal, maxTokens: 1024 });
  };
}

export function createHarnessHookRunner(deps: HookRunnerDeps): HookRunner {
  const { cwd, scrubbed } = deps.setup;
  return createHookRunner({
    hooks: deps.hooks,
    callbacks: deps.callbacks,
    cwd,
    home: deps.setup.home,
    judge: deps.judge,
    agentJudge: deps.agentJudge,
    env: scrubbed,
    base: () => {
      const session = deps.session();
      return {
        session_id: session.id,
        transcript_path: session.path,
        cwd,
        permission_mode: deps.permissionMode(),
      };
    },
    notify: (notice) => deps.notices.notify(notice),
  });
}
