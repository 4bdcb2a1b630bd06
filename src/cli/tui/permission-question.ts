import type { PermissionAnswer, PermissionRequest } from "../../permissions/index.js";
import { type PermissionPreview, permissionPreview, readPreviewFile } from "../permission-preview.js";
import type { Style } from "../style.js";
import { showControls } from "../terminal-text.js";
import { createQuestionDialog, type Question, type QuestionDialog } from "./question-dialog.js";

/** Where "always" saves its rules, as the option names it. */
export const LOCAL_SETTINGS = ".mitsu/settings.local.json";

/**
 * The permission question: what the call will do (`preview`), who asks (a sub-agent) and why, then
 * 1 yes / 2 yes, always (naming the exact rules saved to `.mitsu/settings.local.json`; absent when no rule can
 * be saved) / 3 no, and tell mitsu what to do instead (`deny_and_stop`; also Esc).
 */
export function permissionQuestion(
  request: PermissionRequest,
  preview: PermissionPreview,
  style: Style,
): Question<PermissionAnswer> {
  const who = request.agent
    ? `${style.cyan(`[${showControls(request.agent)}]`)} `
    : request.agentPath
      ? `${style.dim("(a sub-agent)")} `
      : "";
  const rules = request.suggestedRules.map(showControls);
  return {
    title: `${who}${preview.title}`,
    body: (width) => [...preview.lines(width), "", style.dim(showControls(request.reason))],
    prompt: "Do you want to proceed?",
    options: [
      { key: "1", aliases: ["y"], label: "Yes", answer: "allow_once" },
      ...(rules.length > 0
        ? [
            {
              key: "2",
              aliases: ["a"],
              label: "Yes, and don't ask again for this in this project",
              detail: `saves ${rules.join(", ")} to ${LOCAL_SETTINGS}`,
              answer: "allow_always" as const,
            },
          ]
        : []),
      {
        key: "3",
        aliases: ["n"],
        label: "No, and tell mitsu what to do instead",
        answer: "deny_and_stop",
      },
    ],
    escape: "deny_and_stop",
    hint: "Esc to say no",
  };
}

/**
 * The permission question as a mounted-ready dialog: reads the file an Edit or Write would change (for its diff),
 * builds the preview and the question. Withdrawn (answers `deny`) when `request.signal` aborts: the run was
 * interrupted, or the user stopped the turn at another call. The caller mounts it, awaits `answer`, unmounts it.
 */
export async function createPermissionDialog(
  request: PermissionRequest,
  options: { cwd: string; style: Style; onChange?: () => void },
): Promise<QuestionDialog<PermissionAnswer>> {
  const file = await readPreviewFile(request, options.cwd);
  const preview = permissionPreview(request, {
    cwd: options.cwd,
    style: options.style,
    ...(file ? { file } : {}),
  });
  const dialog = createQuestionDialog(permissionQuestion(request, preview, options.style), {
    style: options.style,
    ...(options.onChange ? { onChange: options.onChange } : {}),
  });
  const signal = request.signal;
  if (signal?.aborted) dialog.cancel("deny");
  else if (signal) {
    const withdraw = () => dialog.cancel("deny");
    signal.addEventListener("abort", withdraw, { once: true });
    void dialog.answer.then(() => signal.removeEventListener("abort", withdraw));
  }
  return dialog;
}
