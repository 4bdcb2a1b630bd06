import type { PermissionAnswer, PermissionRequest } from "../../permissions/index.js";
import type { Style } from "../render/style.js";
import { showControls } from "../render/terminal-text.js";
import { permissionPreview, readPreviewFile } from "./permission-preview.js";
import type { Question } from "./question-dialog.js";

/**
 * The permission question for a call, as the dialog shows it: what the call will do (the preview: a diff, the
 * command), who asks (a sub-agent names itself) and why, then `1. Yes` / `2. Yes, and don't ask again for
 * <rules>` (when rules can be suggested) / `3. No, and tell mitsu what to do instead`. Esc is 3.
 */
export async function permissionQuestion(
  request: PermissionRequest,
  options: { cwd: string; style: Style },
): Promise<Question<PermissionAnswer>> {
  const { style } = options;
  const file = await readPreviewFile(request, options.cwd);
  const preview = permissionPreview(request, { cwd: options.cwd, style, ...(file ? { file } : {}) });
  const who = request.agent
    ? `${style.cyan(`[${showControls(request.agent)}]`)} `
    : request.agentPath
      ? `${style.dim("(a sub-agent)")} `
      : "";
  const rules = showControls(request.suggestedRules.join(", "));
  return {
    title: `${who}${preview.title}`,
    body: (width) => [
      ...preview.lines(width),
      "",
      style.dim(showControls(request.display)),
      style.dim(showControls(request.reason)),
    ],
    prompt: "Do you want to proceed?",
    options: [
      { key: "1", aliases: ["y"], label: "Yes", answer: "allow_once" },
      ...(request.suggestedRules.length > 0
        ? [
            {
              key: "2",
              aliases: ["a"],
              label: `Yes, and don't ask again for ${rules} in this project`,
              detail: "saved to .mitsu/settings.local.json",
              answer: "allow_always" as const,
            },
          ]
        : []),
      { key: "3", aliases: ["n"], label: "No, and tell mitsu what to do instead", answer: "deny_and_stop" },
    ],
    escape: "deny_and_stop",
    hint: "Esc to refuse",
  };
}

/** The terminal's answer to the permission checker's `ask` (as `ask-permission.ts` was, with a dialog). */
export interface PermissionDialog {
  /**
   * Shows the question in place of the editor and resolves to the key pressed. Questions of parallel calls
   * wait their turn (one on screen at a time). Ended input, an aborted `request.signal` or `cancel` deny.
   * The question and its answer stay in the conversation as one line.
   */
  ask(request: PermissionRequest): Promise<PermissionAnswer>;
  /** Denies the question on screen and every waiting one (the run was interrupted). */
  cancel(): void;
}

const SAID: Record<PermissionAnswer, string> = {
  allow_once: "allowed once",
  allow_always: "allowed always",
  deny: "refused",
  deny_and_stop: "refused",
};

export function createPermissionDialog(
  screen: {
    ask<A>(question: Question<A>, signal?: AbortSignal): Promise<A>;
    write(text: string): void;
    readonly atLineStart: boolean;
  },
  options: { cwd: string; style: Style },
): PermissionDialog {
  const { style } = options;
  let interrupted = new AbortController();
  return {
    async ask(request) {
      const signal = request.signal
        ? AbortSignal.any([request.signal, interrupted.signal])
        : interrupted.signal;
      const question = await permissionQuestion(request, options);
      const answer = await screen.ask(question, signal);
      const said = signal.aborted ? "refused (interrupted)" : SAID[answer];
      const mark = answer.startsWith("allow") ? style.green("✔") : style.red("✘");
      screen.write(
        `${screen.atLineStart ? "" : "\n"}${mark} ${style.dim(`${showControls(request.display)}: ${said}`)}\n`,
      );
      return signal.aborted ? "deny" : answer;
    },
    cancel() {
      interrupted.abort();
      interrupted = new AbortController();
    },
  };
}
