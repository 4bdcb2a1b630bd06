import type { UnapprovedHooksFile } from "../../hooks/index.js";
import { showControls } from "../render/terminal-text.js";
import type { Question } from "./question-dialog.js";

/**
 * The question about a project's hooks file nobody approved, as a dialog: each hook's event, matcher and the
 * command mitsu would run (escaped: the file is the repository's). 1 run them / 2 don't; Esc is no.
 */
export function hooksApprovalQuestion(file: UnapprovedHooksFile): Question<boolean> {
  return {
    title: `${showControls(file.file)} defines hooks: commands mitsu would run on your behalf`,
    body: () =>
      file.hooks.map(
        (hook) =>
          `${showControls(hook.event)}${hook.matcher ? ` [${showControls(hook.matcher)}]` : ""}: ${showControls(hook.command)}`,
      ),
    prompt: "Run these hooks in this folder?",
    options: [
      { key: "1", aliases: ["y"], label: "Yes, run them", answer: true },
      { key: "2", aliases: ["n"], label: "No", answer: false },
    ],
    escape: false,
    hint: "Esc to say no",
  };
}
